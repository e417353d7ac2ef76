"""From a comparison's answers to preferences: repeats, judges, both orders, the score.

An answer names a position (``1``, ``2`` or ``tie``); mapped through the order it
was asked in it becomes ``a``, ``b`` or ``tie``, and for a penalty the other
submission is preferred (the statement is more true of the one with more of the
fault). Repeats of one judge and the judges of an ensemble are counted by head
count (weights for judges); a draw between ``a`` and ``b``, or with ``tie``, is a
tie. The two orders then decide the criterion: the same preference counts,
different ones make a position-inconsistent tie.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from .._errors import JudgeError
from .._model._pairwise import CriterionPreference, OrderAnswer, Preference, Side
from .._model._stability import Stability, Variation, flip_rate
from ._judging import Outcome
from ._pairwise_prompts import FIRST, SECOND, TIE

__all__ = [
    "Asked",
    "criterion_preference",
    "order_answer",
    "read_position",
    "score_of",
    "vote",
]

_POSITIONS = {
    "1": FIRST,
    "2": SECOND,
    "tie": TIE,
    "first": FIRST,
    "second": SECOND,
    "answer 1": FIRST,
    "answer 2": SECOND,
    "equal": TIE,
    "same": TIE,
    "both": TIE,
    "neither": TIE,
}


def read_position(data: Any) -> str:
    """The position a comparison's reply names: ``1``, ``2`` or ``tie``.

    Raises:
        JudgeError: category ``parse`` when the reply names none.
    """
    raw = data.get("answer", data.get("preferred")) if isinstance(data, Mapping) else None
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = str(raw)
    key = raw.strip().lower() if isinstance(raw, str) else None
    if key is None or key not in _POSITIONS:
        raise JudgeError(
            f"answer {raw!r} is not '1', '2' or 'tie'", category="parse", raw_text=repr(data)[:500]
        )
    return _POSITIONS[key]


def _side(position: str, first: Side, penalty: bool) -> Preference:
    if position == TIE:
        return "tie"
    second: Side = "b" if first == "a" else "a"
    named = first if position == FIRST else second
    if penalty:  # the one the fault is more true of is the worse one
        return "b" if named == "a" else "a"
    return named


@dataclass
class Asked:
    """One call of one comparison: what came back, or why nothing did."""

    outcome: Outcome
    position: str | None = None
    probabilities: dict[str, float] | None = None  # keyed by position

    def preference(self, first: Side, penalty: bool) -> Preference | None:
        """The answer as ``a``/``b``/``tie`` (None when the call failed)."""
        return None if self.position is None else _side(self.position, first, penalty)


def vote(answers: Sequence[tuple[Preference, float]]) -> Preference:
    """The answer with the most weight; a draw at the top is a tie."""
    tally: dict[str, float] = {}
    for answer, weight in answers:
        tally[answer] = tally.get(answer, 0.0) + weight
    top = max(tally.values())
    leaders = [a for a, w in tally.items() if w == top]
    return cast(Preference, leaders[0]) if len(leaders) == 1 else "tie"


@dataclass
class MemberAnswer:
    """One judge's answer in one order, its repeats merged."""

    judge_id: str
    weight: float
    preferred: Preference | None
    probabilities: dict[str, float] | None
    reason: str
    error: JudgeError | None
    stability: Stability | None = None
    asked: list[Asked] = field(default_factory=list)


def _side_probs(
    probs: Mapping[str, float] | None, first: Side, penalty: bool
) -> dict[str, float] | None:
    if probs is None:
        return None
    out: dict[str, float] = {}
    for position, p in probs.items():
        side = _side(position, first, penalty)
        out[side] = out.get(side, 0.0) + p
    return out


def _mean(probs: Sequence[dict[str, float] | None]) -> dict[str, float] | None:
    if not probs or any(p is None for p in probs):
        return None
    keys = sorted({k for p in probs if p is not None for k in p})
    return {k: sum((p or {}).get(k, 0.0) for p in probs) / len(probs) for k in keys}


def member_answer(
    asked: Sequence[Asked],
    first: Side,
    penalty: bool,
    variation: Variation | None,
    temperature: float | None,
) -> MemberAnswer:
    """Merge one judge's repeats in one order (a single ask when not repeating)."""
    base = asked[0].outcome
    prefs = [a.preference(first, penalty) for a in asked]
    ok = [(a, p) for a, p in zip(asked, prefs, strict=True) if p is not None]
    stability = None
    if len(asked) > 1 and variation is not None:
        stability = Stability(
            repeats=len(asked),
            answers=list(prefs),
            flip_rate=flip_rate(prefs),
            variation=variation,
            temperature=temperature if variation == "temperature" else None,
        )
    if not ok:
        return MemberAnswer(base.judge_id, base.weight, None, None, "", base.error, stability)
    chosen = vote([(p, 1.0) for _, p in ok])
    reason = next((a.outcome.reason for a, p in ok if p == chosen), ok[0][0].outcome.reason)
    probs = _mean([_side_probs(a.probabilities, first, penalty) for a, _ in ok])
    return MemberAnswer(
        base.judge_id, base.weight, chosen, probs, reason, None, stability, list(asked)
    )


def _named(preferred: Preference, first: Side, penalty: bool) -> str:
    """The position an answer of ``preferred`` names (undoing :func:`_side`)."""
    if preferred == "tie":
        return TIE
    named = preferred if not penalty else ("b" if preferred == "a" else "a")
    return FIRST if named == first else SECOND


def order_answer(members: Sequence[MemberAnswer], first: Side, penalty: bool) -> OrderAnswer:
    """One order's answer from its judges' answers."""
    ok = [m for m in members if m.preferred is not None]
    votes = {m.judge_id: m.preferred for m in members} if len(members) > 1 else None
    stability = members[0].stability if len(members) == 1 else None
    if not ok:
        err = members[0].error
        return OrderAnswer(
            first=first,
            error=str(err) if err is not None else "no answer",
            error_category=err.category if err is not None else None,
            votes=votes,
            stability=stability,
        )
    preferred = vote([(cast(Preference, m.preferred), m.weight) for m in ok])
    probs = _mean([m.probabilities for m in ok])
    return OrderAnswer(
        first=first,
        named=_named(preferred, first, penalty),
        preferred=preferred,
        confidence=probs.get(preferred) if probs is not None else None,
        probabilities=probs,
        reason=next((m.reason for m in ok if m.preferred == preferred), ok[0].reason),
        votes=votes,
        stability=stability,
    )


def criterion_preference(
    key: str, requirement: str, weight: float, orders: Sequence[OrderAnswer]
) -> CriterionPreference:
    """A criterion's preference from its two orders (disagreement: an inconsistent tie)."""
    common: dict[str, Any] = {
        "key": key,
        "requirement": requirement,
        "weight": weight,
        "orders": list(orders),
    }
    failed = [o for o in orders if o.preferred is None]
    if failed:
        return CriterionPreference(
            **common, error=failed[0].error, error_category=failed[0].error_category
        )
    first, second = orders[0].preferred, orders[1].preferred
    if first == second:
        return CriterionPreference(**common, preferred=first, position_consistent=True)
    return CriterionPreference(**common, preferred="tie", position_consistent=False)


def score_of(prefs: Sequence[CriterionPreference]) -> float | None:
    """The weighted preference in [-1, 1] over the compared criteria (None if none was)."""
    compared = [p for p in prefs if p.preferred is not None]
    if not compared:
        return None
    value = {"a": 1.0, "b": -1.0, "tie": 0.0}
    total = sum(abs(p.weight) for p in compared)
    if total == 0:
        return sum(value[p.preferred or "tie"] for p in compared) / len(compared)
    return sum(abs(p.weight) * value[p.preferred or "tie"] for p in compared) / total
