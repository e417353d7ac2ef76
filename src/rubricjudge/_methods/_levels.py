"""Levels of a criterion and the reports a scoring method produces.

A level is an option (its id is the option's ``id``, else its label) or, on a
binary criterion, ``MET`` / ``UNMET``. Every method result ends in
:func:`level_report` or :func:`error_report`; scores come from ``_scoring``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._model._reports import CriterionReport, OptionSelection
from .._model._rubric import Criterion, CriterionOption, CriterionVerdict, ScoringType

__all__ = [
    "ERROR_LEVEL",
    "UNABLE_LEVEL",
    "error_report",
    "extreme_level",
    "level_id",
    "level_ids",
    "level_report",
    "resolve_level",
]

ERROR_LEVEL = "error"
UNABLE_LEVEL = "unable_to_evaluate"
_BOOL_WORDS = {"true": True, "false": False, "yes": True, "no": False, "pass": True, "fail": False}


def level_id(option: CriterionOption) -> str:
    """Return the id of an option as a level: its ``id``, else its label."""
    return option.id or option.label


def level_ids(criterion: Criterion) -> list[str]:
    """Every level id a judge or function may choose for ``criterion``."""
    if criterion.options is None:
        return [CriterionVerdict.MET.value, CriterionVerdict.UNMET.value]
    return [level_id(o) for o in criterion.options]


def name_of(criterion: Criterion) -> str:
    """How messages name a criterion."""
    return criterion.key or criterion.requirement[:40]


def _selection(criterion: Criterion, index: int) -> OptionSelection:
    opt = (criterion.options or [])[index]
    return OptionSelection(index=index, label=opt.label, value=opt.value, na=opt.na)


def extreme_level(criterion: Criterion, *, best: bool) -> CriterionVerdict | int:
    """Return the best (or worst) outcome for the criterion's weight sign.

    For a binary criterion a verdict (a penalty's best outcome is UNMET); for a
    multi-choice one the option index (highest value is best unless the weight is
    negative). Ties go to the option listed first.
    """
    positive = criterion.weight >= 0
    if criterion.options is None:
        met = best == positive
        return CriterionVerdict.MET if met else CriterionVerdict.UNMET
    sign = 1.0 if best == positive else -1.0
    scored = [i for i, o in enumerate(criterion.options) if not o.na]
    return max(scored, key=lambda i: (sign * criterion.options[i].value, -i))  # type: ignore[index]


def resolve_level(
    criterion: Criterion, value: Any, *, strict: bool = False
) -> CriterionVerdict | int:
    """Read a function's or judge's answer as a verdict or an option index.

    Accepts a level id, an option label, a verdict (``MET`` / ``UNMET`` /
    ``CANNOT_ASSESS``) or a bool. True on a multi-choice criterion is its
    highest-value option, False its lowest. ``strict`` (the ``dataknobs`` policy)
    accepts exactly a level id, as dataknobs' executor does.

    Raises:
        ValueError: the value is none of those; the message lists the valid levels.
    """
    valid = ", ".join(repr(x) for x in level_ids(criterion))
    if strict:
        ids = level_ids(criterion)
        if isinstance(value, str) and value in ids:
            if criterion.options is None:
                return CriterionVerdict(value)
            return ids.index(value)
        raise ValueError(
            f"{value!r} is not a level id of criterion {name_of(criterion)!r} (the dataknobs "
            f"policy accepts exact ids only); valid level ids are {valid}"
        )
    if isinstance(value, CriterionVerdict):
        verdict: CriterionVerdict | None = value
    elif isinstance(value, bool):
        verdict = CriterionVerdict.MET if value else CriterionVerdict.UNMET
    elif isinstance(value, str):
        text = value.strip()
        if criterion.options is not None:
            for i, o in enumerate(criterion.options):
                if o.id is not None and o.id == text:
                    return i
            try:
                return criterion.find_option_by_label(text)
            except ValueError:
                pass
        upper = text.upper().replace(" ", "_")
        verdict = CriterionVerdict(upper) if upper in CriterionVerdict.__members__ else None
        if verdict is None and criterion.options is None and text.lower() in _BOOL_WORDS:
            verdict = CriterionVerdict.MET if _BOOL_WORDS[text.lower()] else CriterionVerdict.UNMET
        if verdict is None:
            raise ValueError(
                f"{value!r} is not a level of criterion {name_of(criterion)!r}; "
                f"valid levels are {valid}"
            )
    else:
        raise ValueError(
            f"{value!r} ({type(value).__name__}) is not a level id, label, verdict or bool; "
            f"valid levels of {name_of(criterion)!r} are {valid}"
        )
    assert verdict is not None
    opts = criterion.options
    if opts is None or verdict is CriterionVerdict.CANNOT_ASSESS:
        return verdict
    scored = [i for i, o in enumerate(opts) if not o.na]
    if verdict is CriterionVerdict.MET:
        return max(scored, key=lambda i: (opts[i].value, -i))
    return min(scored, key=lambda i: (opts[i].value, i))


def level_report(
    criterion: Criterion,
    level: CriterionVerdict | int,
    method: ScoringType,
    *,
    evidence: Sequence[str] = (),
    notes: str = "",
    **extra: Any,
) -> CriterionReport:
    """Return the report of a criterion decided at ``level`` (a verdict or an option index)."""
    if isinstance(level, CriterionVerdict):
        return CriterionReport(
            criterion=criterion,
            verdict=level,
            level_id=level.value,
            reason=notes,
            evidence=list(evidence),
            notes=notes,
            scoring_method_used=method,
            **extra,
        )
    opt = (criterion.options or [])[level]
    return CriterionReport(
        criterion=criterion,
        selection=_selection(criterion, level),
        level_id=level_id(opt),
        reason=notes,
        evidence=list(evidence),
        notes=notes,
        scoring_method_used=method,
        **extra,
    )


def error_report(
    criterion: Criterion,
    method: ScoringType,
    message: str,
    *,
    category: str,
    level: str = ERROR_LEVEL,
    evidence: Sequence[str] = (),
    **extra: Any,
) -> CriterionReport:
    """Return a recorded failure: CANNOT_ASSESS with ``error`` set, never a score of its own.

    What it is worth follows the scoring policy's CannotAssessStrategy, as for a
    judge that failed in a grader.
    """
    return CriterionReport(
        criterion=criterion,
        verdict=CriterionVerdict.CANNOT_ASSESS,
        level_id=level,
        error=f"{category}: {message}",
        error_category=category,
        evidence=list(evidence),
        notes=message,
        scoring_method_used=method,
        **extra,
    )
