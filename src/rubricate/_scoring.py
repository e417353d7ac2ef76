"""Scoring: the one place that turns verdicts into numbers.

Every path that computes a score (``Rubric.compute_score``, dataset ground truth,
every grader, ``rubricate score``) ends in :func:`score_reports`, so they agree.

For each counted criterion *i* with credit ``v_i`` in [0, 1] and weight ``w_i``::

    raw_score = sum(v_i * w_i)
    score     = clamp(raw_score / sum(max(0, w_i)))        rubric with a positive weight
    score     = clamp(1 + raw_score / sum(|w_i|))          rubric whose weights are all negative

Credit: MET is 1, UNMET is 0, an option gives its value; a parent criterion gives
the same formula applied to its children (the PaperBench weighted mean). An N/A
option is never counted. CANNOT_ASSESS follows the :class:`CannotAssessStrategy`.
When nothing is counted the score is 0.0 (autorubric's convention).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from ._errors import VerdictError
from ._model import Criterion, CriterionVerdict, Rubric

if TYPE_CHECKING:
    from ._reports import CriterionReport, EvaluationReport, SectionScore

__all__ = [
    "CannotAssessStrategy",
    "ScoringPolicy",
    "assemble_reports",
    "finalize",
    "parse_verdict",
    "reports_from_verdicts",
    "score_reports",
]


class CannotAssessStrategy(str, Enum):
    """What a CANNOT_ASSESS verdict counts as.

    SKIP leaves the criterion out; ZERO gives no credit; PARTIAL gives
    ``partial_credit``; FAIL assumes the worst for the weight's sign (UNMET on a
    positive criterion, MET on a penalty, the worst option on a multi-choice one).
    """

    SKIP = "skip"
    ZERO = "zero"
    PARTIAL = "partial"
    FAIL = "fail"


@dataclass(frozen=True)
class ScoringPolicy:
    """How to score: the CANNOT_ASSESS strategy and whether to normalise."""

    cannot_assess: CannotAssessStrategy = CannotAssessStrategy.SKIP
    partial_credit: float = 0.5
    normalize: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.partial_credit <= 1.0:
            raise ValueError(f"partial_credit {self.partial_credit!r} is outside [0, 1]")


DEFAULT_POLICY = ScoringPolicy()


def _cannot_assess_value(criterion: Criterion, policy: ScoringPolicy) -> float | None:
    strategy = policy.cannot_assess
    if strategy is CannotAssessStrategy.SKIP:
        return None
    if strategy is CannotAssessStrategy.ZERO:
        return 0.0
    if strategy is CannotAssessStrategy.PARTIAL:
        return policy.partial_credit
    if criterion.is_multi_choice:
        return criterion.worst_scored_option()[1].value
    return 0.0 if criterion.weight >= 0 else 1.0


def report_value(report: CriterionReport, policy: ScoringPolicy = DEFAULT_POLICY) -> float | None:
    """Credit in [0, 1] of one report, or None when it does not count."""
    if report.children:
        return _normalized(list(report.children), policy, _all_negative(report.children))[0]
    if report.selection is not None:
        return None if report.selection.na else report.selection.value
    if report.verdict is CriterionVerdict.MET:
        return 1.0
    if report.verdict is CriterionVerdict.UNMET:
        return 0.0
    return _cannot_assess_value(report.criterion, policy)


def _all_negative(reports: Iterable[CriterionReport]) -> bool:
    return all(r.criterion.weight < 0 for r in reports)


def _normalized(
    reports: Sequence[CriterionReport], policy: ScoringPolicy, all_negative: bool
) -> tuple[float | None, float, bool]:
    """(normalised score or None if nothing counted, raw weighted sum, anything counted)."""
    raw = 0.0
    positive = 0.0
    absolute = 0.0
    counted = False
    for r in reports:
        v = report_value(r, policy)
        if v is None:
            continue
        counted = True
        w = r.criterion.weight
        raw += v * w
        absolute += abs(w)
        if w > 0:
            positive += w
    if all_negative:
        score = 1.0 + raw / absolute if absolute > 0 else None
    else:
        score = raw / positive if positive > 0 else None
    if score is not None:
        score = max(0.0, min(1.0, score))
    return score, raw, counted


@dataclass(frozen=True)
class ScoreResult:
    """The numbers :func:`score_reports` computes."""

    score: float
    raw_score: float
    cannot_assess_count: int


def _leaf_reports(reports: Iterable[CriterionReport]) -> Iterable[CriterionReport]:
    for r in reports:
        if r.children:
            yield from _leaf_reports(r.children)
        else:
            yield r


def score_reports(
    reports: Sequence[CriterionReport],
    policy: ScoringPolicy = DEFAULT_POLICY,
    *,
    all_negative: bool | None = None,
) -> ScoreResult:
    """Score top-level criterion reports; the single source of truth for scores."""
    neg = _all_negative(reports) if all_negative is None else all_negative
    score, raw, _ = _normalized(reports, policy, neg)
    ca = sum(1 for r in _leaf_reports(reports) if r.verdict is CriterionVerdict.CANNOT_ASSESS)
    final = (score if score is not None else 0.0) if policy.normalize else raw
    return ScoreResult(score=final, raw_score=raw, cannot_assess_count=ca)


# -- verdict parsing -----------------------------------------------------------
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

    Binary criteria take MET / UNMET / CANNOT_ASSESS (any case), true/false, 1/0.
    Multi-choice criteria take an option label or id, or CANNOT_ASSESS.
    """
    from ._reports import CriterionReport, OptionSelection

    at = f"{where}: " if where else ""
    if not criterion.is_leaf:
        raise VerdictError(f"{at}criterion {criterion.key!r} has subcriteria; give leaf verdicts")
    if isinstance(value, CriterionVerdict):
        if criterion.is_multi_choice and value is not CriterionVerdict.CANNOT_ASSESS:
            raise VerdictError(
                f"{at}criterion {criterion.key or ''!r} is multi-choice; "
                f"give an option label, not {value.value}"
            )
        return CriterionReport(criterion=criterion, verdict=value)
    if isinstance(value, bool):
        text = "TRUE" if value else "FALSE"
    elif isinstance(value, int | float) and value in (0, 1) and not criterion.is_multi_choice:
        text = str(int(value))
    elif isinstance(value, str):
        text = value.strip()
    else:
        raise VerdictError(f"{at}verdict {value!r} is not a string, boolean or 0/1")
    upper = text.upper().replace(" ", "_")
    if criterion.is_multi_choice:
        if upper == "CANNOT_ASSESS":
            return CriterionReport(criterion=criterion, verdict=CriterionVerdict.CANNOT_ASSESS)
        try:
            idx = criterion.find_option_by_label(text)
        except ValueError as e:
            raise VerdictError(f"{at}{e}") from None
        opt = (criterion.options or [])[idx]
        sel = OptionSelection(index=idx, label=opt.label, value=opt.value, na=opt.na)
        return CriterionReport(criterion=criterion, selection=sel)
    if upper not in _BINARY:
        raise VerdictError(
            f"{at}verdict {value!r} is not valid for a binary criterion; "
            "use MET, UNMET, CANNOT_ASSESS, true/false or 1/0"
        )
    return CriterionReport(criterion=criterion, verdict=_BINARY[upper])


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


def reports_from_verdicts(
    rubric: Rubric, verdicts: Sequence[Any] | Mapping[str, Any]
) -> list[CriterionReport]:
    """Reports for a list of verdicts (leaf order) or a mapping keyed by leaf name/id."""
    leaves = rubric.leaves()
    if isinstance(verdicts, Mapping):
        by_key = {c.key: c for c in leaves if c.key is not None}
        unknown = [k for k in verdicts if k not in by_key]
        if unknown:
            raise VerdictError(
                f"unknown criterion {unknown[0]!r}; valid names/ids are "
                + ", ".join(repr(k) for k in by_key)
            )
        missing = [c.key or f"#{i}" for i, c in enumerate(leaves) if c.key not in verdicts]
        if missing:
            raise VerdictError(f"no verdict for criterion {missing[0]!r}; give one for each leaf")
        values = [verdicts[c.key or ""] for c in leaves]
    else:
        values = list(verdicts)
        if len(values) != len(leaves):
            raise VerdictError(
                f"got {len(values)} verdicts for {len(leaves)} criteria; give one per leaf "
                "criterion, in order"
            )
    leaf_reports = [
        parse_verdict(c, v, where=f"verdicts[{c.key!r}]" if c.key else f"verdicts[{i}]")
        for i, (c, v) in enumerate(zip(leaves, values, strict=True))
    ]
    return assemble_reports(rubric.criteria, leaf_reports)


def finalize(
    rubric: Rubric,
    reports: list[CriterionReport],
    policy: ScoringPolicy = DEFAULT_POLICY,
    **fields: Any,
) -> EvaluationReport:
    """Score reports into an :class:`EvaluationReport` (scale, pass and errors included).

    When every leaf failed with a judge error, nothing was graded: ``score`` is None.
    """
    from ._reports import EvaluationReport, TokenUsage

    leaves = list(_leaf_reports(reports))
    errors = [r for r in leaves if r.is_error]
    usage = TokenUsage.total([r.token_usage for r in leaves])
    costs = [r.completion_cost for r in leaves]
    cost = None if any(c is None for c in costs) or not costs else sum(c or 0.0 for c in costs)
    fields.setdefault("token_usage", usage)
    fields.setdefault("completion_cost", cost)
    if leaves and len(errors) == len(leaves):
        return EvaluationReport(
            score=None,
            report=reports,
            error=f"no criterion could be graded; first error: {errors[0].error}",
            error_count=len(errors),
            **fields,
        )
    result = score_reports(reports, policy, all_negative=rubric.is_all_negative)
    unit = result.score if policy.normalize else _unit(reports, policy, rubric)
    scaled = rubric.scale.map(unit) if rubric.scale is not None else None
    passed = unit >= rubric.pass_threshold if rubric.pass_threshold is not None else None
    return EvaluationReport(
        score=result.score,
        raw_score=result.raw_score,
        report=reports,
        cannot_assess_count=result.cannot_assess_count,
        error_count=len(errors),
        scaled_score=scaled,
        passed=passed,
        **fields,
    )


def _unit(reports: list[CriterionReport], policy: ScoringPolicy, rubric: Rubric) -> float:
    normalized = ScoringPolicy(policy.cannot_assess, policy.partial_credit, normalize=True)
    return score_reports(reports, normalized, all_negative=rubric.is_all_negative).score


def section_scores(report: EvaluationReport) -> list[SectionScore]:
    """Per-section scores of a report, with the rules of :func:`score_reports`."""
    from ._reports import SectionScore

    groups: dict[str | None, list[CriterionReport]] = {}
    for r in report.report or []:
        groups.setdefault(r.criterion.section, []).append(r)
    out = []
    for section, rs in groups.items():
        res = score_reports(rs)
        out.append(SectionScore(section=section, score=res.score, raw_score=res.raw_score,
                                criteria=len(rs)))
    return out
