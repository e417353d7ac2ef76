"""Input, progress and summary for ``rubricate grade``."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

from .._errors import ConfigError, RubricateError
from .._limits import DataLimitError, describe_json_error, json_loads, numbered_lines
from .._reports import EvaluationReport

__all__ = ["Item", "Progress", "estimate_cost", "read_items", "summary"]


@dataclass(frozen=True)
class Item:
    """One submission to grade, from one input line."""

    line: int
    id: str
    submission: Any
    query: str | None
    reference: str | None


def _text(obj: dict[str, Any], key: str, where: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{where}: {key!r} is {type(value).__name__}; give text")
    return value


def read_items(stream: IO[str], name: str) -> list[Item]:
    """Parse JSONL lines of ``submission`` and optional ``id``, ``query``, ``reference``.

    Raises:
        ConfigError: naming the file and line number of the first bad line.
    """
    try:
        return _read_items(stream, name)
    except DataLimitError as e:  # bytes that are not UTF-8
        raise ConfigError(f"{name}: {e}") from None


def _read_items(stream: IO[str], name: str) -> list[Item]:
    from .._graders._inputs import to_submission

    items: list[Item] = []
    for n, raw in numbered_lines(stream):
        if not raw.strip():
            continue
        where = f"{name} line {n}"
        try:
            obj = json_loads(raw)
        except json.JSONDecodeError as e:
            raise ConfigError(
                f"{where}: not valid JSON: {describe_json_error(e, line=False)}; "
                "write one JSON object per line"
            ) from None
        except DataLimitError as e:
            raise ConfigError(f"{where}: {e}") from None
        if not isinstance(obj, dict):
            raise ConfigError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        if "submission" not in obj:
            raise ConfigError(f"{where}: missing 'submission' (text or {{thinking, output}})")
        try:
            sub = to_submission(obj["submission"], where="submission")
        except RubricateError as e:
            raise ConfigError(f"{where}: {e}") from None
        ident = obj.get("id")
        reference = _text(obj, "reference", where)
        if reference is None:
            reference = _text(obj, "reference_submission", where)
        items.append(
            Item(
                line=n,
                id=str(ident) if ident is not None else str(n),
                submission=sub,
                query=_text(obj, "query", where),
                reference=reference,
            )
        )
    return items


class Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, total: int, stream: IO[str] | None = None) -> None:
        self.total = total
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = total > 0 and self.stream.isatty()

    def step(self) -> None:
        """Count one finished item and redraw."""
        self.done += 1
        if self.enabled:
            width = 30
            filled = width * self.done // self.total
            bar = "#" * filled + "." * (width - filled)
            self.stream.write(f"\r[{bar}] {self.done}/{self.total}")
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()


def estimate_cost(spec: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Dollars for a judge spec, or None when its price is unknown."""
    prefix, _, model = spec.partition("/")
    if prefix in ("fake", "local"):
        return 0.0
    if not model:
        return None
    try:
        from genai_prices import Usage, calc_price

        price = calc_price(
            Usage(input_tokens=prompt_tokens, output_tokens=completion_tokens),
            model_ref=model,
            provider_id=prefix,
        )
        return float(price.total_price)
    except Exception:  # unknown model, provider or missing extra: unknown, never 0
        return None


def _histogram(scores: Sequence[float]) -> list[str]:
    bins = [0] * 5
    for s in scores:
        bins[min(4, max(0, int(s * 5)))] += 1
    top = max(bins) or 1
    return [
        f"  {i / 5:.1f}-{(i + 1) / 5:.1f} {'#' * round(20 * b / top):<20} {b}"
        for i, b in enumerate(bins)
    ]


def summary(reports: Sequence[EvaluationReport], *, judges: str, grader: str) -> str:
    """Format the summary table printed on stderr after a run."""
    scores = [r.score for r in reports if r.score is not None]
    lines = [f"graded {len(reports)} items with {grader} grading, judge {judges}"]
    if scores:
        mean = sum(scores) / len(scores)
        lines.append(f"score: mean {mean:.3f}  min {min(scores):.3f}  max {max(scores):.3f}")
        if all(0.0 <= s <= 1.0 for s in scores):
            lines += _histogram(scores)
    calls = sum(r.judge_calls for r in reports)
    cached = sum(r.cached_calls for r in reports)
    prompt = sum(r.token_usage.prompt_tokens for r in reports if r.token_usage)
    completion = sum(r.token_usage.completion_tokens for r in reports if r.token_usage)
    costs = [r.completion_cost for r in reports]
    known = sum(c for c in costs if c is not None)
    unknown = sum(1 for c in costs if c is None)
    cost = f"${known:.4f}" + (f" + unknown for {unknown} items" if unknown else "")
    lines.append(f"judge calls: {calls} ({cached} cached)")
    lines.append(f"tokens: {prompt} prompt + {completion} completion")
    lines.append(f"cost: {cost}")
    crit_errors = sum(r.error_count for r in reports)
    failed = sum(1 for r in reports if r.score is None)
    lines.append(f"errors: {crit_errors} criteria; items not graded: {failed}")
    return "\n".join(lines)
