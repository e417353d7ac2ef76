"""Scoring: the one place that turns verdicts into numbers.

Every path that computes a score (``Rubric.compute_score``, dataset ground truth,
every grader, ``rubricjudge score``) ends in :func:`score_reports`, so they agree.

For each counted criterion *i* with credit ``v_i`` in [0, 1] and weight ``w_i``::

    raw_score = sum(v_i * w_i)
    score     = clamp(raw_score / sum(max(0, w_i)))        rubric with a positive weight
    score     = clamp(1 + raw_score / sum(|w_i|))          rubric whose weights are all negative

Credit: MET is 1, UNMET is 0, an option gives its value, a number on a criterion's
scale its place there (``(x - min) / (max - min)``); a parent criterion gives
the same formula applied to its children (the PaperBench weighted mean).
CANNOT_ASSESS and an N/A option follow the :class:`CannotAssessStrategy` (as
autorubric's ``compute_score`` documents: "how to handle CANNOT_ASSESS / NA").

Which formula applies depends on the weights that *counted*: when no criterion with
a positive weight counted (a rubric of penalties, zero weights beside penalties, or
positive criteria all skipped), the all-negative formula is used, as the seed
``rubric`` package states it and autorubric and ``rubric`` compute it. When nothing
counted, there is no score: ``None``, normalised or not, as autorubric returns; when
only zero-weight criteria counted, the score is 0.0, as autorubric and ``rubric`` give.

Sums are exactly rounded (``math.fsum``), so a score does not depend on the order of
the criteria; ``ScoringPolicy(compat="autorubric")`` adds in rubric order instead, as
autorubric, ``rubric`` on Python 3.11 and PaperBench do, to match their results to the
last bit.
Verdict values are parsed into reports in ``_verdicts``, the policy is ``_policy`` and the
credit of one report ``_credit`` (all re-exported here).

**A judge failure is not CANNOT_ASSESS.** A criterion whose judge failed (``error``
set) and for which no fallback verdict stood in (``default_fallback_verdicts``) is
*undecided*. When an undecided criterion carries weight (its weight, and every parent's
above it, is not 0), the item has no score under the default ``judge_failure="no_score"``:
``score`` is None, ``error`` names the failed criteria and the report counts as failed
everywhere (grade, evaluate, rewards, the gate, the pytest plugin), as :func:`finalize`
and :func:`judge_failures` decide. CANNOT_ASSESS verdicts a judge did give are priced by
the :class:`CannotAssessStrategy` as before.

``judge_failure="partial"`` opts in to a floor instead: every undecided criterion counts
at its worst for the sign of its weight (a criterion that earns credit earns none, a
penalty is charged, a multi-choice criterion takes its worst option; under a parent the
sign is the product of the weights' signs down the path), and the report is flagged
``partial=True``. Whatever the judge would have answered on the undecided criteria,
the complete score would not be lower, so a partial score is never above what the
decided criteria allow. Skipping the undecided criteria instead would not be a bound:
a rubric whose credit-carrying criteria all failed and whose penalty was answered
UNMET would score 1.0. Rewards and the gate never use a partial score.

Gates (a criterion's ``gate``, see ``_relations``): while a gate criterion is UNMET the
score is at most the gate's ``cap`` (0.0 by default), the unnormalised score at most
the raw score that normalises to it; a judge failure on a gate criterion leaves the
item without a score (``finalize``), never a 0. A rubric without gates scores as above.

``ScoringPolicy(compat="dataknobs")`` (:meth:`ScoringPolicy.dataknobs`) swaps these
rules for the dataknobs executor's, which score a failure as 0 and do not clamp
(``_scoring_dataknobs``); it is opt-in, for matching results made with dataknobs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._credit import normalized, report_value, weights_all_negative
from ._policy import (
    COMPAT_CHOICES,
    DEFAULT_POLICY,
    JUDGE_FAILURE_CHOICES,
    CannotAssessStrategy,
    Compat,
    JudgeFailurePolicy,
    ScoringPolicy,
)
from ._rubric import CriterionVerdict, Rubric, Scale
from ._verdicts import assemble_reports, parse_verdict, reports_from_verdicts

if TYPE_CHECKING:
    from ._reports import CriterionReport, EvaluationReport, SectionScore

__all__ = [
    "COMPAT_CHOICES",
    "DEFAULT_POLICY",
    "JUDGE_FAILURE_CHOICES",
    "CannotAssessStrategy",
    "Compat",
    "JudgeFailurePolicy",
    "ScoreResult",
    "ScoringPolicy",
    "assemble_reports",
    "complete_score",
    "failure_reason",
    "finalize",
    "judge_failures",
    "leaf_reports",
    "on_scale",
    "parse_verdict",
    "report_value",
    "reports_from_verdicts",
    "score_reports",
    "section_scores",
    "under_the_rule",
    "weighted_leaves",
]


@dataclass(frozen=True)
class ScoreResult:
    """The numbers :func:`score_reports` computes (``score`` None when nothing counted)."""

    score: float | None
    raw_score: float
    cannot_assess_count: int


def leaf_reports(reports: Iterable[CriterionReport]) -> Iterator[CriterionReport]:
    """Yield the leaf reports of a report tree, in rubric leaf order."""
    for r in reports:
        if r.children:
            yield from leaf_reports(r.children)
        else:
            yield r


def score_reports(
    reports: Sequence[CriterionReport],
    policy: ScoringPolicy = DEFAULT_POLICY,
    *,
    all_negative: bool | None = None,
) -> ScoreResult:
    """Score top-level criterion reports; the single source of truth for scores."""
    neg = weights_all_negative(reports) if all_negative is None else all_negative
    score, raw, counted = normalized(reports, policy, neg)
    score, raw = _gated(reports, policy, score, raw)
    ca = sum(1 for r in leaf_reports(reports) if r.verdict is CriterionVerdict.CANNOT_ASSESS)
    # unnormalised, nothing counted is no score either (None, as autorubric): not a 0.0
    final = score if policy.normalize else (raw if counted else None)
    return ScoreResult(score=final, raw_score=raw, cannot_assess_count=ca)


def _undecided(report: CriterionReport) -> bool:
    """A leaf whose judge failed and for which no fallback verdict stood in."""
    return (
        report.error is not None
        and report.selection is None
        and report.scale_score is None
        and report.turn_credit is None
        and report.verdict in (None, CriterionVerdict.CANNOT_ASSESS)
    )


def judge_failures(reports: Iterable[CriterionReport]) -> list[CriterionReport]:
    """The leaves whose judge failed, undecided, on a criterion that carries weight.

    A leaf carries weight when its weight and every parent's above it are not 0: only
    those can move the score. A leaf that a fallback verdict stood in for is decided.
    This is the rule every consumer applies (see the module docstring).
    """
    out: list[CriterionReport] = []
    for r in reports:
        if r.criterion.weight == 0:
            continue
        if r.children:
            out.extend(judge_failures(r.children))
        elif _undecided(r):
            out.append(r)
    return out


def _worst(report: CriterionReport, sign: float) -> CriterionReport:
    """``report`` decided at its worst for ``sign`` (the product of the weights' signs)."""
    from ._reports import OptionSelection

    criterion = report.criterion
    if criterion.is_multi_choice:
        opts = criterion.options or []
        scored = [i for i, o in enumerate(opts) if not o.na]
        # the least credit where credit helps, the most where it is charged
        pick = min(scored, key=lambda i: (sign * opts[i].value, i))
        opt = opts[pick]
        selection = OptionSelection(index=pick, label=opt.label, value=opt.value)
        return report.model_copy(update={"selection": selection})
    verdict = CriterionVerdict.UNMET if sign > 0 else CriterionVerdict.MET
    return report.model_copy(update={"verdict": verdict})


def _at_worst(reports: Sequence[CriterionReport], sign: float = 1.0) -> list[CriterionReport]:
    """The report tree with every weighted undecided leaf at its worst (``partial``)."""
    out = []
    for r in reports:
        w = r.criterion.weight
        here = sign * (1.0 if w >= 0 else -1.0)
        if w == 0:
            out.append(r)
        elif r.children:
            out.append(r.model_copy(update={"children": _at_worst(r.children, here)}))
        elif _undecided(r):
            out.append(_worst(r, here))
        else:
            out.append(r)
    return out


def _failure_message(failed: Sequence[CriterionReport], leaves: int) -> str:
    first = failed[0]
    name = first.criterion.key or first.criterion.requirement[:60]
    return (
        f"the judge failed on {len(failed)} of {leaves} criteria that carry weight, so the "
        f"item has no score (a judge failure is not a verdict); first: {name!r}: {first.error}"
    )


def _gated(
    reports: Sequence[CriterionReport], policy: ScoringPolicy, score: float | None, raw: float
) -> tuple[float | None, float]:
    """(score, raw score) under the rubric's gates: capped while a gate is UNMET.

    A rubric without gates is returned unchanged (see ``_relations``).
    """
    from ._relations import closed_gate_cap, raw_at

    cap = closed_gate_cap(leaf_reports(reports), policy)
    if cap is None or score is None or score <= cap:
        return score, raw
    return cap, min(raw, raw_at(cap, reports, policy))


def finalize(
    rubric: Rubric,
    reports: list[CriterionReport],
    policy: ScoringPolicy = DEFAULT_POLICY,
    **fields: Any,
) -> EvaluationReport:
    """Score reports into an :class:`EvaluationReport` (scale, pass and errors included).

    When the judge failed on a criterion that carries weight and no fallback verdict
    stood in for it (:func:`judge_failures`), the item has no score: ``score`` is None
    and ``error`` names the failure; under ``policy.judge_failure="partial"`` it gets
    the floor over the decided criteria instead, flagged ``partial`` (``passed`` is
    True when even the floor passes, else None). With ``default_fallback_verdicts``
    the fallback verdicts score, as the seed ``rubric`` package's fallbacks do.
    """
    from ._relations import gate_failure
    from ._reports import EvaluationReport, TokenUsage

    leaves = list(leaf_reports(reports))
    errors = [r for r in leaves if r.is_error]
    usage = TokenUsage.total([r.token_usage for r in leaves])
    costs = [r.completion_cost for r in leaves]
    cost = None if any(c is None for c in costs) or not costs else sum(c or 0.0 for c in costs)
    fields.setdefault("token_usage", usage)
    fields.setdefault("completion_cost", cost)
    unanswered = [r for r in errors if _undecided(r)]
    failed = judge_failures(reports) if policy.compat != "dataknobs" else []
    # fallback verdicts still score; dataknobs scores a failure 0 (its executor's rule)
    gate_failed = gate_failure(leaves)  # a failed gate is never a closed (or open) gate
    if gate_failed is not None:
        return EvaluationReport(
            score=None, report=reports, error=gate_failed, error_count=len(errors), **fields
        )
    if leaves and len(unanswered) == len(leaves) and policy.compat != "dataknobs":
        return EvaluationReport(
            score=None,
            report=reports,
            error=f"no criterion could be graded; first error: {errors[0].error}",
            error_count=len(errors),
            **fields,
        )
    if failed and policy.judge_failure == "no_score":
        weighted = sum(1 for _ in weighted_leaves(reports))
        return EvaluationReport(
            score=None,
            report=reports,
            cannot_assess_count=sum(
                1 for r in leaves if r.verdict is CriterionVerdict.CANNOT_ASSESS and not r.is_error
            ),
            error=_failure_message(failed, weighted),
            error_count=len(errors),
            **fields,
        )
    scored = _at_worst(reports) if failed else reports
    result = score_reports(scored, policy, all_negative=rubric.is_all_negative)
    unit = result.score if policy.normalize else _unit(scored, policy, rubric)
    passed = None
    if rubric.pass_threshold is not None and unit is not None:
        passed = unit >= rubric.pass_threshold
        if failed and not passed:  # a floor below the threshold does not say it failed
            passed = None
    if failed:
        fields["partial"] = True
    return EvaluationReport(
        score=result.score,
        raw_score=result.raw_score,
        report=reports,
        cannot_assess_count=result.cannot_assess_count,
        error_count=len(errors),
        passed=passed,
        **on_scale(rubric.scale, unit),
        **fields,
    )


def weighted_leaves(reports: Iterable[CriterionReport]) -> Iterator[CriterionReport]:
    """The leaves that carry weight (theirs and every parent's not 0), in rubric order."""
    for r in reports:
        if r.criterion.weight == 0:
            continue
        if r.children:
            yield from weighted_leaves(r.children)
        else:
            yield r


def failure_reason(report: EvaluationReport) -> str | None:
    """Why the report has no complete score (see :func:`complete_score`), else None."""
    if report.score is not None and complete_score(report) is not None:
        return None
    if report.error is not None:
        return report.error
    failed = judge_failures(report.report or [])
    if failed:
        return _failure_message(failed, sum(1 for _ in weighted_leaves(report.report or [])))
    return "no score"


def under_the_rule(report: EvaluationReport) -> EvaluationReport:
    """A stored report read under the failure rule (for runs graded before it).

    A report that carries a score beside a judge failure on a weighted criterion, and
    is not a ``partial`` floor someone opted in to, loses that score: ``score``,
    ``passed`` and the scale fields become None and ``error`` says why. Any other
    report is returned as it is.
    """
    if report.score is None or report.partial or not report.report:
        return report
    failed = judge_failures(report.report)
    if not failed:
        return report
    weighted = sum(1 for _ in weighted_leaves(report.report))
    return report.model_copy(
        update={
            "score": None,
            "raw_score": None,
            "passed": None,
            "overall_score": None,
            "scaled_score": None,
            "error": report.error or _failure_message(failed, weighted),
        }
    )


def complete_score(report: EvaluationReport) -> float | None:
    """The report's score when every weighted criterion was decided, else None.

    A ``partial`` score (see the module docstring) is a floor, not a score a reward
    or a gate may use: they take this instead of ``report.score``.
    """
    if report.partial or (report.report is not None and judge_failures(report.report)):
        return None
    return report.score


def on_scale(scale: Scale | None, unit: float | None) -> dict[str, float | None]:
    """The report fields that place a score in [0, 1] on the rubric's scale.

    ``overall_score`` is exact (OpenRubricRL's, which its reward normalises);
    ``scaled_score`` is rounded half up on a discrete scale, for display. Both are
    None without a scale or a score.
    """
    if scale is None or unit is None:
        return {"overall_score": None, "scaled_score": None}
    unit = max(0.0, min(1.0, unit))  # dataknobs' scores may leave [0, 1]
    return {"overall_score": scale.position(unit), "scaled_score": scale.map(unit)}


def _unit(reports: list[CriterionReport], policy: ScoringPolicy, rubric: Rubric) -> float | None:
    normalized = policy.with_normalize(True)
    return score_reports(reports, normalized, all_negative=rubric.is_all_negative).score


def section_scores(
    report: EvaluationReport, policy: ScoringPolicy = DEFAULT_POLICY
) -> list[SectionScore]:
    """Per-section scores of a report, with the rules of :func:`score_reports`.

    Each section is scored as if its top-level criteria were a rubric of their own
    (so a section of penalties only uses the all-negative formula). Criteria without
    a section form the group ``None``. ``score`` is None where the section has no
    score: nothing counted (every criterion skipped or N/A), or, normalised, only
    penalties counted in a section that also has positive criteria.
    """
    from ._reports import SectionScore

    groups: dict[str | None, list[CriterionReport]] = {}
    for r in report.report or []:
        groups.setdefault(r.criterion.section, []).append(r)
    out = []
    for section, rs in groups.items():
        score, raw, counted = normalized(rs, policy, weights_all_negative(rs))
        value = score if policy.normalize else (raw if counted else None)
        out.append(SectionScore(section=section, score=value, raw_score=raw, criteria=len(rs)))
    return out
