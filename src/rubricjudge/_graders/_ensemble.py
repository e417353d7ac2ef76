"""Ensembles: several judges vote on each criterion and one decision follows.

Binary criteria: ``majority`` (head count), ``weighted`` (sum of judge weights),
``unanimous`` (MET only if every counted vote is MET), ``any`` (MET if one is).
Ordinal criteria: ``mean``, ``median``, ``weighted_mean`` of the chosen options'
values, snapped to the nearest option; ``mode``, ``weighted_mode``, ``min``, ``max``.
Nominal criteria: ``mode``, ``weighted_mode``, ``unanimous``.
Criteria scored on a scale: ``weighted_mean`` (the default), ``mean``, ``median`` of
the numbers given (not snapped: a mean of whole numbers may fall between them).

CANNOT_ASSESS votes and N/A options abstain: they are set aside before counting,
and a criterion on which every vote abstains is CANNOT_ASSESS (or N/A). Every tie
goes to the verdict that scores lowest for the criterion's weight sign: UNMET for a
positive weight, MET for a negative one, :meth:`Criterion.worst_option_among` for
options. Judges that failed do not vote (see ``_combine`` for the failure policy).
``agreement`` is the fraction of the votes cast that equal the decision.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ConfigError
from .._model._rubric import Criterion, CriterionVerdict
from ._options import (
    BINARY_AGGREGATIONS,
    NOMINAL_AGGREGATIONS,
    ORDINAL_AGGREGATIONS,
    SCALE_AGGREGATIONS,
)

__all__ = [
    "Decision",
    "JudgeSpec",
    "check_aggregation",
    "decide_binary",
    "decide_options",
    "decide_scale",
]


MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS


@dataclass(frozen=True)
class JudgeSpec:
    """One ensemble member: a judge (spec string, Judge or callable), an id and a weight."""

    judge: Any
    id: str | None = None
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not (isinstance(self.weight, int | float) and math.isfinite(self.weight)):
            raise ConfigError(f"judge weight {self.weight!r} is not a finite number")
        if self.weight <= 0:
            raise ConfigError(f"judge weight {self.weight!r} must be positive")


@dataclass(frozen=True)
class Decision:
    """An ensemble's decision on one criterion."""

    verdict: CriterionVerdict | None
    option: int | None
    agreement: float


def allowed_aggregations(criterion: Criterion) -> tuple[str, ...]:
    """Return the aggregation names that fit ``criterion``'s kind."""
    if criterion.is_scored_on_scale:
        return SCALE_AGGREGATIONS
    if not criterion.is_multi_choice:
        return BINARY_AGGREGATIONS
    return NOMINAL_AGGREGATIONS if criterion.scale_type == "nominal" else ORDINAL_AGGREGATIONS


def check_aggregation(criterion: Criterion, method: str, *, where: str) -> str:
    """Return ``method`` if it fits ``criterion``.

    Raises:
        ConfigError: naming the criterion, the bad method and the valid ones.
    """
    valid = allowed_aggregations(criterion)
    if method not in valid:
        kind = criterion.scale_type or ("scale" if criterion.is_scored_on_scale else "binary")
        raise ConfigError(
            f"{where}: aggregation {method!r} does not apply to a {kind} criterion; "
            "use one of " + ", ".join(repr(v) for v in valid)
        )
    return method


def _agreement(cast: int, agreeing: int) -> float:
    return agreeing / cast if cast else 0.0


def decide_scale(votes: Sequence[tuple[float, float]], method: str) -> tuple[float, float]:
    """(number, agreement) from numbers on a scale ``(score, judge weight)``.

    ``weighted_mean`` weighs each judge, ``mean`` counts them equally, ``median``
    takes the middle (the mean of the two middle ones). Agreement is the share of
    judges whose number equals the result's nearest vote.
    """
    if not votes:
        raise ConfigError("no scale votes to aggregate")
    numbers = [s for s, _ in votes]
    if method == "weighted_mean":
        total = math.fsum(w for _, w in votes)
        value = math.fsum(s * w for s, w in votes) / total
    elif method == "mean":
        value = math.fsum(numbers) / len(numbers)
    elif method == "median":
        value = statistics.median(numbers)
    else:
        raise ConfigError(f"unknown scale aggregation {method!r}")
    nearest = min(numbers, key=lambda s: abs(s - value))
    return value, _agreement(len(numbers), sum(1 for s in numbers if s == nearest))


def decide_binary(
    criterion: Criterion, votes: Sequence[tuple[CriterionVerdict, float]], method: str
) -> Decision:
    """Aggregate binary votes ``(verdict, judge weight)`` with ``method``."""
    counted = [(v, w) for v, w in votes if v is not CA]
    worst = UNMET if criterion.weight >= 0 else MET
    if not counted:
        verdict = CA
    elif method in ("majority", "weighted"):
        met = sum(w if method == "weighted" else 1.0 for v, w in counted if v is MET)
        unmet = sum(w if method == "weighted" else 1.0 for v, w in counted if v is UNMET)
        verdict = MET if met > unmet else UNMET if unmet > met else worst
    elif method == "unanimous":
        verdict = MET if all(v is MET for v, _ in counted) else UNMET
    elif method == "any":
        verdict = MET if any(v is MET for v, _ in counted) else UNMET
    else:
        raise ConfigError(f"unknown binary aggregation {method!r}")
    agreeing = sum(1 for v, _ in votes if v is verdict)
    return Decision(verdict=verdict, option=None, agreement=_agreement(len(votes), agreeing))


def _snap(criterion: Criterion, target: float) -> int:
    opts = criterion.options or []
    scored = [i for i, o in enumerate(opts) if not o.na]
    best = min(abs(opts[i].value - target) for i in scored)
    near = [i for i in scored if abs(opts[i].value - target) - best <= 1e-9]
    return criterion.worst_option_among(near)


def _by_tally(criterion: Criterion, tally: dict[int, float]) -> int:
    top = max(tally.values())
    return criterion.worst_option_among([i for i, t in tally.items() if t == top])


def decide_options(
    criterion: Criterion, votes: Sequence[tuple[int | None, float]], method: str
) -> Decision:
    """Aggregate option votes ``(original index or None for CANNOT_ASSESS, weight)``."""
    opts = criterion.options or []
    counted = [(i, w) for i, w in votes if i is not None and not opts[i].na]
    if not counted:
        na_votes = [i for i, _ in votes if i is not None]
        option = min(na_votes) if na_votes else None
        verdict = None if option is not None else CA
        agreeing = sum(1 for i, _ in votes if i == option)
        return Decision(verdict, option, _agreement(len(votes), agreeing))
    values = [opts[i].value for i, _ in counted]
    if method == "mean":
        option = _snap(criterion, statistics.fmean(values))
    elif method == "weighted_mean":
        total = sum(w for _, w in counted)
        option = _snap(criterion, sum(opts[i].value * w for i, w in counted) / total)
    elif method == "median":
        option = _snap(criterion, statistics.median(values))
    elif method in ("mode", "weighted_mode"):
        tally: dict[int, float] = {}
        for i, w in counted:
            tally[i] = tally.get(i, 0.0) + (w if method == "weighted_mode" else 1.0)
        option = _by_tally(criterion, tally)
    elif method in ("min", "max"):
        pick = min(values) if method == "min" else max(values)
        option = criterion.worst_option_among([i for i, _ in counted if opts[i].value == pick])
    elif method == "unanimous":
        chosen = sorted({i for i, _ in counted})
        option = chosen[0] if len(chosen) == 1 else criterion.worst_option_among(chosen)
    else:
        raise ConfigError(f"unknown option aggregation {method!r}")
    agreeing = sum(1 for i, _ in votes if i == option)
    return Decision(verdict=None, option=option, agreement=_agreement(len(votes), agreeing))
