"""Input, progress and summary for ``rubricjudge grade``."""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from .._errors import ConfigError, RubricJudgeError
from .._limits import DataLimitError, describe_json_error, json_loads, numbered_lines
from .._model._reports import EvaluationReport
from .._stats._flips import FlipTally

if TYPE_CHECKING:
    from .._judges._fleet import EndpointStats

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["Item", "Tally", "iter_items", "json_objects", "read_items", "text_field"]


@dataclass(frozen=True)
class Item:
    """One submission to grade, from one input line."""

    line: int
    id: str
    submission: Any
    query: str | None
    reference: Any  # text, or a Submission with images (content parts)


def json_objects(stream: IO[str], name: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """Yield ``(line number, "NAME line N", object)`` for each non-blank JSONL line.

    Raises:
        ConfigError: naming the file and line of a line that is not a JSON object.
    """
    lines = numbered_lines(stream)
    while True:
        try:
            n, raw = next(lines)
        except StopIteration:
            return
        except DataLimitError as e:  # bytes that are not UTF-8
            raise ConfigError(f"{name}: {e}") from None
        if not raw.strip():
            continue
        where = f"{name} line {n}"
        try:
            obj = json_loads(raw, source=name, line=n)
        except json.JSONDecodeError as e:
            raise ConfigError(
                f"{where}: not valid JSON: {describe_json_error(e, line=False)}; "
                "write one JSON object per line"
            ) from None
        except DataLimitError as e:
            raise ConfigError(f"{where}: {e}") from None
        if not isinstance(obj, dict):
            raise ConfigError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        yield n, where, obj


def text_field(obj: dict[str, Any], key: str, where: str) -> str | None:
    """``obj[key]`` when it is text or absent; a ConfigError naming ``where`` otherwise."""
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{where}: {key!r} is {type(value).__name__}; give text")
    return value


def _submission(obj: dict[str, Any], where: str, media_file: str | None = None) -> Any:
    """The line's submission: ``submission`` (text, thinking/output, parts) or ``messages``.

    Images' paths start from ``media_file``'s folder and stay in it (see ``_media_source``).
    """
    from .._conversations._media_source import media_source
    from .._conversations._messages import read_messages_with_media
    from .._conversations._submission import Submission, to_submission

    has_text, has_messages = "submission" in obj, "messages" in obj
    if has_text == has_messages:
        raise ConfigError(
            f"{where}: "
            + ("give 'submission' or 'messages', not both" if has_text else "missing 'submission'")
            + " (a line holds 'submission': text or {thinking, output}, or 'messages': a "
            "conversation in OpenAI or Anthropic form)"
        )
    if "system" in obj and not has_messages:
        raise ConfigError(f"{where}: 'system' goes with 'messages' (Anthropic's system prompt)")
    if has_text and isinstance(obj["submission"], str):
        # text holds no image: no media source (it resolves the file's path, per line)
        return to_submission(obj["submission"], where="submission")
    try:
        with media_source(media_file or "<stdin>"):
            if has_messages:
                conv, media = read_messages_with_media(
                    obj["messages"], system=obj.get("system"), where="messages"
                )
                return Submission.of_conversation(conv, media)
            return to_submission(obj["submission"], where="submission")
    except RubricJudgeError as e:
        raise ConfigError(f"{where}: {e}") from None


def _reference(obj: dict[str, Any], where: str, media_file: str | None) -> Any:
    """The line's ``reference`` (or ``reference_submission``): text, or content parts."""
    from .._conversations._media_source import media_source
    from .._conversations._submission import to_reference

    key = "reference" if obj.get("reference") is not None else "reference_submission"
    value = obj.get(key)
    if not isinstance(value, list):
        return text_field(obj, key, where)
    try:
        with media_source(media_file or "<stdin>"):
            return to_reference(value, where=key)
    except RubricJudgeError as e:
        raise ConfigError(f"{where}: {e}") from None


def read_items(stream: IO[str], name: str, media_file: str | None = None) -> list[Item]:
    """Read every item of a JSONL stream into a list (see :func:`iter_items`)."""
    return list(iter_items(stream, name, media_file))


def iter_items(stream: IO[str], name: str, media_file: str | None = None) -> Iterator[Item]:
    """Yield items from JSONL lines of ``submission`` (or ``messages``) and ``id``, ``query`` ...

    A line holds ``submission`` (text or ``{thinking, output}``) or ``messages`` (a
    conversation, OpenAI or Anthropic; with Anthropic's top-level ``system`` beside
    it), and optionally ``id``, ``query`` and ``reference``.

    One line is read at a time, so a large input costs no memory in proportion.
    A submission may be content parts with images and documents; their paths start
    from ``media_file``'s folder (the current directory for stdin) and stay in it.

    Raises:
        ConfigError: naming the file and line number of the first bad line.
    """
    for n, where, obj in json_objects(stream, name):
        sub = _submission(obj, where, media_file)
        ident = obj.get("id")
        reference = _reference(obj, where, media_file)
        yield Item(
            line=n,
            id=str(ident) if ident is not None else str(n),
            submission=sub,
            query=text_field(obj, "query", where),
            reference=reference,
        )


def _histogram(scores: Sequence[float]) -> list[str]:
    bins = [0] * 5
    for s in scores:
        bins[min(4, max(0, int(s * 5)))] += 1
    top = max(bins) or 1
    return [
        f"  {i / 5:.1f}-{(i + 1) / 5:.1f} {'#' * round(20 * b / top):<20} {b}"
        for i, b in enumerate(bins)
    ]


SMALL_RUN = 10
"""Runs of at most this many items end with a table of each item's verdicts."""


def _mark(c: Any) -> str:
    """A criterion's result in a few characters: MET, UNMET, N/A, error, option, number."""
    if c.error is not None:
        return "error"
    if c.scale_score is not None:
        return f"{c.scale_score.score:g}"
    if c.selection is not None:
        return str(c.selection.label)[:20]
    if c.verdict is not None:
        return "N/A" if c.verdict.value == "CANNOT_ASSESS" else str(c.verdict.value)
    if c.children:
        return "-" if c.score_value is None else f"{c.score_value:.2f}"
    return "?"


def item_row(r: EvaluationReport, width: int = 100) -> str:
    """One line of the per-item table: id, score, and each criterion's result."""
    score = "-" if r.score is None else f"{r.score:.3f}"
    if r.report:
        what = "  ".join(
            f"{c.criterion.key or c.criterion.requirement[:24]}={_mark(c)}" for c in r.report
        )
    else:
        what = r.error or ""
    line = f"  {str(r.id):<10} {score:>6}  {what}"
    return line if len(line) <= width else line[: width - 1] + "\u2026"


class Tally:
    """What ``grade`` prints after a run, accumulated report by report (8 bytes an item).

    The first :data:`SMALL_RUN` + 1 items also keep one line each, printed as a table
    when the run turns out to be small.
    """

    def __init__(self) -> None:
        self.items = 0
        self.scores = array("d")
        self.calls = self.cached = self.prompt = self.completion = 0
        self.known_cost = 0.0
        self.unknown_cost = 0
        self.criterion_errors = 0
        self.not_graded = 0
        self.partial = 0
        self.failures: list[str] = []  # the first items not graded, with why
        self.endpoints: dict[str, EndpointStats] = {}
        self.flips = FlipTally()
        self.rows: list[str] = []

    def add(self, r: EvaluationReport) -> None:
        """Count one item's report."""
        self.items += 1
        if r.score is None:
            self.not_graded += 1
            if len(self.failures) < 3:
                self.failures.append(f"{r.id}: {r.error or 'no score'}")
        else:
            self.scores.append(r.score)
            self.partial += bool(r.partial)
        self.calls += r.judge_calls
        self.cached += r.cached_calls
        if r.token_usage is not None:
            self.prompt += r.token_usage.prompt_tokens
            self.completion += r.token_usage.completion_tokens
        if r.completion_cost is None:
            self.unknown_cost += 1
        else:
            self.known_cost += r.completion_cost
        self.criterion_errors += r.error_count
        self.flips.add(r)
        if len(self.rows) <= SMALL_RUN:
            self.rows.append(item_row(r))

    def text(self, *, judges: str, grader: str) -> str:
        """Format the summary printed on stderr."""
        scores = self.scores
        lines = [f"graded {self.items} items with {grader} grading, judge {judges}"]
        if scores:
            mean = sum(scores) / len(scores)
            lines.append(f"score: mean {mean:.3f}  min {min(scores):.3f}  max {max(scores):.3f}")
            if all(0.0 <= s <= 1.0 for s in scores):
                lines += _histogram(scores)
        cost = f"${self.known_cost:.4f}"
        if self.unknown_cost:
            cost += f" + unknown for {self.unknown_cost} items"
        lines.append(f"judge calls: {self.calls} ({self.cached} cached)")
        lines.append(f"tokens: {self.prompt} prompt + {self.completion} completion")
        lines.append(f"cost: {cost}")
        lines.append(
            f"errors: {self.criterion_errors} criteria; items not graded: {self.not_graded}"
        )
        lines.extend(f"  {f}" for f in self.failures)
        if self.partial:
            lines.append(
                f"partial scores: {self.partial} items (floors over the decided criteria: "
                "the judge failed on others; --judge-failure partial)"
            )
        lines.extend(self.flips.lines())
        if self.endpoints:
            from .._runs._summary import endpoint_lines

            lines.extend(endpoint_lines(self.endpoints))
        if 0 < self.items <= SMALL_RUN:
            lines.append("items (id, score, each criterion):")
            lines.extend(self.rows)
        return "\n".join(lines)
