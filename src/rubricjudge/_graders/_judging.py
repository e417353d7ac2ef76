"""One judge call about one criterion, and what came back (an :class:`Outcome`).

A judge failure never becomes a verdict here: it is kept as ``Outcome.error`` and
the failure policy in ``_combine`` decides what the criterion gets.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from .._errors import JudgeError
from .._judges._base import Judge, JudgeRequest, JudgeResponse
from .._model._reports import (
    CalibrationRecord,
    Escalation,
    EvidenceCheck,
    JudgeVote,
    OptionSelection,
    ScaleScore,
    TokenUsage,
)
from .._model._rubric import Criterion, CriterionVerdict
from .._model._stability import Stability
from .._trace import span

__all__ = [
    "Member",
    "Outcome",
    "ask",
    "read_criterion_reply",
    "read_into",
    "read_probabilities",
    "read_scale_reply",
    "shuffle_order",
]


@dataclass(frozen=True)
class Member:
    """A resolved judge with its id and vote weight."""

    id: str
    weight: float
    judge: Judge


@dataclass
class Outcome:
    """What one judge said about one criterion (or why it could not say)."""

    judge_id: str
    weight: float = 1.0
    verdict: CriterionVerdict | None = None
    option: int | None = None
    score: float | None = None
    reason: str = ""
    reasoning: str | None = None
    error: JudgeError | None = None
    usage: TokenUsage | None = None
    cost: float | None = None
    cached: bool = False
    calls: int = 1
    shuffle_order: list[int] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    probabilities: dict[str, float] | None = None
    option_label: str | None = None
    calibration: CalibrationRecord | None = None
    calibrated: dict[str, float] | None = None
    features: bytes | None = None
    evidence: EvidenceCheck | None = None
    escalation: Escalation | None = None
    stability: Stability | None = None

    @property
    def confidence(self) -> float | None:
        """The probability of the answer that counts (calibrated when a calibration applied)."""
        probs = self.calibrated if self.calibrated is not None else self.probabilities
        if probs is None:
            return None
        label = self.verdict.value if self.verdict is not None else self.option_label
        return probs.get(label or "")

    @property
    def ok(self) -> bool:
        """True when the judge produced a usable answer."""
        return self.error is None

    def selection(self, criterion: Criterion) -> OptionSelection | None:
        """Return the chosen option as an :class:`OptionSelection`, or None."""
        if self.option is None:
            return None
        opt = (criterion.options or [])[self.option]
        return OptionSelection(index=self.option, label=opt.label, value=opt.value, na=opt.na)

    def scale_score(self, criterion: Criterion) -> ScaleScore | None:
        """Return the number given on ``criterion``'s scale as a :class:`ScaleScore`, or None."""
        if self.score is None:
            return None
        return ScaleScore.of(criterion, self.score)  # checked when the reply was read

    def vote(self, criterion: Criterion) -> JudgeVote:
        """Return this outcome as a recorded ensemble vote."""
        return JudgeVote(
            judge_id=self.judge_id,
            weight=self.weight,
            verdict=self.verdict,
            selection=self.selection(criterion),
            scale_score=self.scale_score(criterion),
            reason=self.reason,
            error=str(self.error) if self.error is not None else None,
            shuffle_order=self.shuffle_order,
            confidence=self.confidence,
            probabilities=self.probabilities,
            stability=self.stability,
        )


def shuffle_order(
    criterion: Criterion, *, seed: int, item_key: str, index: int, judge_id: str
) -> list[int]:
    """Return a reproducible option order (position -> original index); N/A stays last."""
    opts = criterion.options or []
    scored = [i for i, o in enumerate(opts) if not o.na]
    tail = [i for i, o in enumerate(opts) if o.na]
    key = f"{seed}\x00{item_key}\x00{index}\x00{judge_id}".encode("utf-8", "surrogatepass")
    rng = random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))
    rng.shuffle(scored)
    return scored + tail


_ASCII_NUMBER = re.compile(r"[0-9]{1,6}")
_VERDICT_KEYS = ("answer", "verdict", "criterion_status", "status")
_OPTION_KEYS = ("option", "selected_option", "choice")
_REASON_KEYS = ("reason", "explanation")


def _first(data: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    return next((data[k] for k in keys if k in data), None)


def _parse_error(message: str, data: Any) -> JudgeError:
    return JudgeError(message, category="parse", raw_text=repr(data)[:500])


def read_criterion_reply(
    criterion: Criterion, data: Any, order: list[int] | None = None
) -> tuple[CriterionVerdict | None, int | None, str]:
    """(verdict, original option index, reason) from a reply about ``criterion``.

    Accepts our keys and the ``rubric`` seed's (``criterion_status`` / ``explanation``).

    Raises:
        JudgeError: category ``parse`` when the reply does not answer the question.
    """
    if not isinstance(data, Mapping):
        raise _parse_error(f"reply is {type(data).__name__}, not an object", data)
    reason = _first(data, _REASON_KEYS)
    reason = "" if reason is None else str(reason)
    if not criterion.is_multi_choice:
        raw = _first(data, _VERDICT_KEYS)
        text = str(raw).strip().upper().replace(" ", "_").replace("-", "_") if raw else ""
        text = _ANSWERS.get(text, text)
        if criterion.weight < 0:  # older prompts asked penalties as PRESENT / ABSENT
            text = {"PRESENT": "MET", "ABSENT": "UNMET"}.get(text, text)
            valid = "yes, no (or MET, UNMET, PRESENT, ABSENT) or cannot_assess"
        else:
            valid = "yes, no (or MET, UNMET) or cannot_assess"
        if text not in ("MET", "UNMET", "CANNOT_ASSESS"):
            raise _parse_error(f"verdict {raw!r} is not {valid}", data)
        return CriterionVerdict(text), None, reason
    opts = criterion.options or []
    raw = _first(data, _OPTION_KEYS)
    shown = order if order is not None else list(range(len(opts)))
    number: int | None = None
    if isinstance(raw, int) and not isinstance(raw, bool):
        number = raw
    elif isinstance(raw, float) and raw.is_integer():
        number = int(raw)
    elif isinstance(raw, str):
        text = raw.strip()
        if _ASCII_NUMBER.fullmatch(text):  # not str.isdigit: "²" is a digit to it
            number = int(text)
        elif text.upper().replace(" ", "_") == "CANNOT_ASSESS":
            return CriterionVerdict.CANNOT_ASSESS, None, reason
        else:
            try:
                return None, criterion.find_option_by_label(text), reason
            except ValueError:
                pass
    if number is None or not 1 <= number <= len(shown):
        raise _parse_error(f"option {raw!r} is not a number from 1 to {len(shown)}", data)
    return None, shown[number - 1], reason


_SCORE_KEYS = ("score", "criterion_score", "rating")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]{1,12}(?:\.[0-9]{0,12})?|\.[0-9]{1,12})")


def read_scale_reply(
    criterion: Criterion, data: Any
) -> tuple[CriterionVerdict | None, float | None, str]:
    """(CANNOT_ASSESS or None, number, reason) from a reply about a criterion on a scale.

    Raises:
        JudgeError: category ``parse`` when the reply gives no number, or a number off
            the criterion's scale (never clamped: a judge that strays is a failure).
    """
    scale = criterion.scale
    assert scale is not None
    if not isinstance(data, Mapping):
        raise _parse_error(f"reply is {type(data).__name__}, not an object", data)
    reason = _first(data, _REASON_KEYS)
    reason = "" if reason is None else str(reason)
    raw = _first(data, _SCORE_KEYS)
    number: float | None = None
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        number = float(raw)
    elif isinstance(raw, str):
        text = raw.strip()
        if text.upper().replace(" ", "_") == "CANNOT_ASSESS":
            return CriterionVerdict.CANNOT_ASSESS, None, reason
        if _DECIMAL.fullmatch(text):
            number = float(text)
    span = f"{scale.min:g} to {scale.max:g}"
    if number is None:
        raise _parse_error(f"score {raw!r} is not a number from {span}", data)
    problem = scale.problem(number)
    if problem is not None:
        raise _parse_error(f"score {problem}", data)
    return None, number, reason


def read_into(
    out: Outcome, criterion: Criterion, data: Any, order: list[int] | None = None
) -> None:
    """Read a reply about ``criterion`` into ``out`` (verdict, option or score, reason).

    Raises:
        JudgeError: category ``parse`` when the reply does not answer the question.
    """
    if criterion.is_scored_on_scale:
        out.verdict, out.score, out.reason = read_scale_reply(criterion, data)
        out.option = None
    else:
        out.verdict, out.option, out.reason = read_criterion_reply(criterion, data, order)
        out.score = None
    if out.option is not None:
        out.option_label = (criterion.options or [])[out.option].label


_ANSWERS = {"YES": "MET", "NO": "UNMET"}
_BINARY_KEYS = {
    "yes": "MET",
    "no": "UNMET",
    "cannot_assess": "CANNOT_ASSESS",
    "PRESENT": "MET",
    "ABSENT": "UNMET",
}


def read_probabilities(
    criterion: Criterion, probs: Mapping[str, float] | None, order: list[int] | None = None
) -> dict[str, float] | None:
    """A judge's probabilities keyed by verdict (``MET`` ...) or by option label.

    Values the judge did not report count as 0; None when there is nothing usable.
    """
    if not probs or criterion.is_scored_on_scale:
        return None
    out: dict[str, float] = {}
    if criterion.is_multi_choice:
        opts = criterion.options or []
        shown = order if order is not None else list(range(len(opts)))
        for n, original in enumerate(shown, 1):
            label = opts[original].label
            out[label] = out.get(label, 0.0) + float(probs.get(str(n), 0.0))
    else:
        for key, p in probs.items():
            name = _BINARY_KEYS.get(key, key)
            if name in ("MET", "UNMET", "CANNOT_ASSESS"):
                out[name] = out.get(name, 0.0) + float(p)
    total = sum(out.values())
    if not total > 0:  # also rejects NaN
        return None
    return {k: v / total for k, v in out.items()}


async def ask(
    member: Member,
    criterion: Criterion,
    request: JudgeRequest,
    *,
    order: list[int] | None = None,
    limiter: AbstractAsyncContextManager[Any] | None = None,
) -> Outcome:
    """Ask ``member`` about ``criterion``; failures come back as ``Outcome.error``."""
    out = Outcome(judge_id=member.id, weight=member.weight, shuffle_order=order)
    with span(_SPAN) as s:
        response = await _call(member, request, limiter=limiter, outcome=out)
        if response is not None:
            try:
                read_into(out, criterion, response.data, order)
            except JudgeError as e:
                out.error = e
            else:
                out.probabilities = read_probabilities(criterion, response.probabilities, order)
                out.features = response.features
        if s is not None:
            _describe(s, member, request, out, criterion)
    return out


async def call(
    member: Member,
    request: JudgeRequest,
    *,
    limiter: AbstractAsyncContextManager[Any] | None = None,
    outcome: Outcome,
) -> JudgeResponse | None:
    """Call the judge, recording usage, cost and errors on ``outcome``."""
    with span(_SPAN) as s:
        response = await _call(member, request, limiter=limiter, outcome=outcome)
        if s is not None:
            _describe(s, member, request, outcome, None)
    return response


async def _call(
    member: Member,
    request: JudgeRequest,
    *,
    limiter: AbstractAsyncContextManager[Any] | None,
    outcome: Outcome,
) -> JudgeResponse | None:
    try:
        async with limiter or nullcontext():
            response = await member.judge.judge(request)
    except JudgeError as e:
        outcome.error = e
        return None
    except Exception as e:  # a user judge that raised something else: still data
        outcome.error = JudgeError(f"{type(e).__name__}: {e}", category="unknown")
        return None
    outcome.usage = response.usage
    outcome.cost = response.cost
    outcome.cached = response.cached
    outcome.reasoning = response.reasoning
    outcome.info = {
        "judge": member.id,
        "model": response.model,
        "latency_s": response.latency_s,
        "queue_s": response.queue_s,
        "attempts": response.attempts,
    }
    return response


_SPAN = "rubricjudge.judge"


def _describe(
    s: Any, member: Member, request: JudgeRequest, out: Outcome, criterion: Criterion | None
) -> None:
    """The judge call's span attributes: the GenAI semantic conventions, then ours."""
    name = member.judge.name
    system, _, model = name.partition("/")
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.system": system,
        "gen_ai.provider.name": system,
        "gen_ai.request.model": model or name,
        "rubricjudge.judge": member.id,
        "rubricjudge.cache_hit": out.cached,
    }
    if out.info.get("model"):
        attrs["gen_ai.response.model"] = out.info["model"]
    if out.usage is not None:
        attrs["gen_ai.usage.input_tokens"] = out.usage.prompt_tokens
        attrs["gen_ai.usage.output_tokens"] = out.usage.completion_tokens
    if out.cost is not None:
        attrs["rubricjudge.cost_usd"] = out.cost
    for tag in ("item", "key"):
        value = request.tags.get(tag)
        if value is not None:
            attrs["rubricjudge.item_id" if tag == "item" else "rubricjudge.criterion"] = str(value)
    if criterion is not None:
        attrs["rubricjudge.criterion"] = criterion.key
        label = out.verdict.value if out.verdict is not None else out.option_label
        if label is not None and out.error is None:
            attrs["rubricjudge.verdict"] = label
        if out.score is not None and out.error is None:
            attrs["rubricjudge.scale_score"] = out.score
        confidence = out.confidence
        if confidence is not None:
            attrs["rubricjudge.probability"] = confidence
    s.set_attributes(attrs)
    if out.error is not None:
        from opentelemetry.trace import Status, StatusCode  # loaded only when tracing is on

        attrs_error = {"error.type": out.error.category, "rubricjudge.error": str(out.error)}
        s.set_attributes(attrs_error)
        s.set_status(Status(StatusCode.ERROR, str(out.error)[:200]))
