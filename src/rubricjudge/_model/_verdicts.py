"""Verdict values to criterion reports: the parsing behind every score from verdicts.

``Rubric.compute_score``, dataset ground truth and ``rubricjudge score`` all turn
user-supplied verdicts (lists in leaf order or mappings keyed by name/id) into
:class:`CriterionReport` trees here, then hand them to ``_scoring.score_reports``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._errors import VerdictError
from ._rubric import Criterion, CriterionVerdict, Rubric

if TYPE_CHECKING:
    from ._reports import CriterionReport

__all__ = ["assemble_reports", "parse_verdict", "reports_from_verdicts"]

_BINARY = {
    "MET": CriterionVerdict.MET,
    "UNMET": CriterionVerdict.UNMET,
    "CANNOT_ASSESS": CriterionVerdict.CANNOT_ASSESS,
    "TRUE": CriterionVerdict.MET,
    "FALSE": CriterionVerdict.UNMET,
    "YES": CriterionVerdict.MET,
    "NO": CriterionVerdict.UNMET,
    "1": CriterionVerdict.MET,
    "0": CriterionVerdict.UNMET,
}


def parse_verdict(criterion: Criterion, value: Any, *, where: str = "") -> CriterionReport:
    """Turn one verdict value into a report for ``criterion``.

    Binary criteria take MET / UNMET / CANNOT_ASSESS (any case), true/false, yes/no, 1/0.
    Multi-choice criteria take an option label or id (a number is read as a label,
    so ``3`` selects the option labelled ``"3"``), or CANNOT_ASSESS. Criteria scored
    on a scale take a number on it (``7.5`` of 0-10; a whole number on a discrete
    scale), or CANNOT_ASSESS; a number off the scale is an error, never clamped.

    Raises:
        VerdictError: the value does not fit the criterion; the message starts with ``where``.
    """
    from ._reports import CriterionReport, OptionSelection

    at = f"{where}: " if where else ""
    name = criterion.key or criterion.requirement[:40]
    if not criterion.is_leaf:
        raise VerdictError(f"{at}criterion {name!r} has subcriteria; give verdicts for its leaves")
    if criterion.is_scored_on_scale:
        return _scale_verdict(criterion, value, at, name)
    if isinstance(value, CriterionVerdict):
        if criterion.is_multi_choice and value is not CriterionVerdict.CANNOT_ASSESS:
            raise VerdictError(
                f"{at}criterion {name!r} is multi-choice; give an option label, not {value.value}"
            )
        return CriterionReport(criterion=criterion, verdict=value)
    if isinstance(value, bool):
        text = "TRUE" if value else "FALSE"
    elif isinstance(value, int | float) and criterion.is_multi_choice:
        text = str(int(value)) if float(value).is_integer() else str(value)
    elif isinstance(value, int | float) and value in (0, 1):
        text = str(int(value))
    elif isinstance(value, str):
        text = value.strip()
    else:
        raise VerdictError(
            f"{at}verdict {value!r} for criterion {name!r} is not a string, boolean or 0/1"
        )
    upper = text.upper().replace(" ", "_")
    if criterion.is_multi_choice:
        if upper == "CANNOT_ASSESS":
            return CriterionReport(criterion=criterion, verdict=CriterionVerdict.CANNOT_ASSESS)
        try:
            idx = criterion.find_option_by_label(text)
        except ValueError as e:
            raise VerdictError(f"{at}criterion {name!r}: {e}") from None
        opt = (criterion.options or [])[idx]
        sel = OptionSelection(index=idx, label=opt.label, value=opt.value, na=opt.na)
        return CriterionReport(criterion=criterion, selection=sel)
    if upper not in _BINARY:
        raise VerdictError(
            f"{at}verdict {value!r} is not valid for binary criterion {name!r}; "
            "use MET, UNMET, CANNOT_ASSESS, true/false or 1/0"
        )
    return CriterionReport(criterion=criterion, verdict=_BINARY[upper])


def _scale_verdict(criterion: Criterion, value: Any, at: str, name: str) -> CriterionReport:
    from ._reports import CriterionReport, ScaleScore

    scale = criterion.scale
    assert scale is not None
    span = f"{scale.min:g} to {scale.max:g}"
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str | CriterionVerdict):
        text = str(value.value if isinstance(value, CriterionVerdict) else value).strip()
        if text.upper().replace(" ", "_") == "CANNOT_ASSESS":
            return CriterionReport(criterion=criterion, verdict=CriterionVerdict.CANNOT_ASSESS)
        try:
            number = float(text)
        except ValueError:
            number = None
    if number is None:
        raise VerdictError(
            f"{at}verdict {value!r} for criterion {name!r} is not a number; the criterion is "
            f"scored on the scale {span}, so give a number on it (or CANNOT_ASSESS)"
        )
    try:
        score = ScaleScore.of(criterion, number)
    except ValueError as e:
        raise VerdictError(
            f"{at}criterion {name!r}: score {e}; give a number from {span} "
            "(scores are never clamped onto the scale)"
        ) from None
    return CriterionReport(criterion=criterion, scale_score=score)


def assemble_reports(
    criteria: Sequence[Criterion], leaf_reports: Iterable[CriterionReport]
) -> list[CriterionReport]:
    """Build the report tree for ``criteria`` from leaf reports given in leaf order."""
    from ._reports import CriterionReport

    it = iter(leaf_reports)

    def build(c: Criterion) -> CriterionReport:
        if c.is_leaf:
            try:
                return next(it)
            except StopIteration:
                raise VerdictError("fewer leaf reports than leaf criteria") from None
        return CriterionReport(criterion=c, children=[build(ch) for ch in c.subcriteria or []])

    out = [build(c) for c in criteria]
    if next(it, None) is not None:
        raise VerdictError("more leaf reports than leaf criteria")
    return out


def _leaf_values(rubric: Rubric, verdicts: Mapping[str, Any], label: str) -> list[tuple[str, Any]]:
    """(where, value) per leaf from a mapping keyed by leaf id or name."""
    leaves = rubric.leaves()
    aliases: dict[str, int] = {}
    for i, c in enumerate(leaves):  # ids and keys first: they win over a clashing name
        if c.key is not None:
            aliases[c.key] = i
    for i, c in enumerate(leaves):
        if c.name is not None:
            aliases.setdefault(c.name, i)
    parents = {c.key: c for c in rubric.iter_all() if not c.is_leaf and c.key is not None}
    given: dict[int, str] = {}
    for k in verdicts:
        if k in parents:
            kids = ", ".join(repr(leaf.key) for leaf in parents[k].leaves())
            raise VerdictError(
                f"{label}[{k!r}]: criterion {k!r} has subcriteria; give verdicts for its leaves "
                f"({kids})"
            )
        if k not in aliases:
            valid = ", ".join(repr(a) for a in aliases) or "(none: the leaves have no names)"
            near = difflib.get_close_matches(str(k), list(aliases), n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise VerdictError(
                f"{label}[{k!r}]: unknown criterion; valid names/ids are {valid}{hint}"
            )
        i = aliases[k]
        if i in given:
            raise VerdictError(
                f"{label}[{k!r}]: criterion already given as {given[i]!r}; give it once"
            )
        given[i] = k
    missing = [i for i in range(len(leaves)) if i not in given]
    if missing:
        names = [repr(leaves[i].key) if leaves[i].key else f"#{i} (unnamed)" for i in missing]
        raise VerdictError(
            f"{label}: no verdict for criterion {', '.join(names)}; "
            "give one for each leaf criterion"
            + ("" if all(leaves[i].key for i in missing) else " (or give a list in leaf order)")
        )
    return [(f"{label}[{given[i]!r}]", verdicts[given[i]]) for i in range(len(leaves))]


def reports_from_verdicts(
    rubric: Rubric, verdicts: Sequence[Any] | Mapping[str, Any], *, label: str = "verdicts"
) -> list[CriterionReport]:
    """Build reports from a list of verdicts (leaf order) or a mapping keyed by leaf name/id.

    Raises:
        VerdictError: a verdict is missing, unknown or does not fit its criterion; the
            message names the list index or mapping key (``verdicts[2]``,
            ``verdicts['tone']``; ``label`` replaces the word ``verdicts``).
    """
    leaves = rubric.leaves()
    if isinstance(verdicts, Mapping):
        pairs = _leaf_values(rubric, verdicts, label)
    elif isinstance(verdicts, str | bytes):
        raise VerdictError(f"{label} must be a list or a mapping, not a string")
    else:
        values = list(verdicts)
        if len(values) != len(leaves):
            raise VerdictError(
                f"{label}: got {len(values)} verdicts for {len(leaves)} leaf criteria; "
                "give one per leaf criterion, in order"
            )
        pairs = [(f"{label}[{i}]", v) for i, v in enumerate(values)]
    leaf_reports = [
        parse_verdict(c, v, where=where) for c, (where, v) in zip(leaves, pairs, strict=True)
    ]
    return assemble_reports(rubric.criteria, leaf_reports)
