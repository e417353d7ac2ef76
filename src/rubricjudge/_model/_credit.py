"""Credit: what one criterion report is worth in [0, 1], and the weighted normalised sum.

The formulas are stated in ``_scoring``'s module docstring; this module computes them for
one report (:func:`report_value`) and for a list of sibling reports (:func:`normalized`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ._criterion import Criterion, CriterionVerdict
from ._policy import DEFAULT_POLICY, CannotAssessStrategy, ScoringPolicy

if TYPE_CHECKING:
    from ._reports import CriterionReport

__all__ = ["cannot_assess_value", "normalized", "report_value", "weights_all_negative"]


def cannot_assess_value(criterion: Criterion, policy: ScoringPolicy) -> float | None:
    strategy = policy.cannot_assess
    if strategy is CannotAssessStrategy.SKIP:
        return None
    if strategy is CannotAssessStrategy.ZERO:
        return 0.0
    if strategy is CannotAssessStrategy.PARTIAL:
        # partial credit is credit: a penalty that could not be assessed is not charged
        # (autorubric's compute_score, which the seed leaves unstated)
        return policy.partial_credit if criterion.weight >= 0 else 0.0
    if criterion.is_multi_choice:
        return criterion.worst_scored_option()[1].value
    return 0.0 if criterion.weight >= 0 else 1.0


def report_value(report: CriterionReport, policy: ScoringPolicy = DEFAULT_POLICY) -> float | None:
    """Credit in [0, 1] of one report, or None when it does not count."""
    if policy.compat == "dataknobs":
        from ._scoring_dataknobs import dataknobs_credit

        return dataknobs_credit(report)
    if report.children:
        return normalized(list(report.children), policy, weights_all_negative(report.children))[0]
    if report.turn_credit is not None:  # the mean over a conversation's assistant turns
        return report.turn_credit
    if report.selection is not None:
        if report.selection.na:
            return cannot_assess_value(report.criterion, policy)
        return report.selection.value
    if report.scale_score is not None:
        return report.scale_score.value
    if report.verdict is CriterionVerdict.MET:
        return 1.0
    if report.verdict is CriterionVerdict.UNMET:
        return 0.0
    return cannot_assess_value(report.criterion, policy)


def weights_all_negative(reports: Iterable[CriterionReport]) -> bool:
    return all(r.criterion.weight < 0 for r in reports)


def normalized(
    reports: Sequence[CriterionReport], policy: ScoringPolicy, all_negative: bool = False
) -> tuple[float | None, float, bool]:
    """(normalised score or None if nothing counted, raw weighted sum, anything counted).

    ``all_negative`` is kept for callers; the formula follows the weights that counted.
    """
    if policy.compat == "dataknobs":
        from ._scoring_dataknobs import dataknobs_score

        score_dk, raw_dk = dataknobs_score(reports)
        return score_dk, raw_dk, bool(reports)
    terms: list[float] = []
    positives: list[float] = []
    absolutes: list[float] = []
    counted = False
    for r in reports:
        v = report_value(r, policy)
        if v is None:
            continue
        counted = True
        w = r.criterion.weight
        terms.append(v * w)
        absolutes.append(abs(w))
        if w > 0:
            positives.append(w)
    # exactly rounded sums: scores at a pass threshold must not flip on the order of the
    # criteria; the autorubric mode adds in order, as the peers do, to match them bit for bit
    add = _in_order if policy.compat == "autorubric" else math.fsum
    raw, positive, absolute = add(terms), add(positives), add(absolutes)
    if positive > 0:
        score: float | None = raw / positive
    elif absolute > 0:  # no positive weight counted: the all-negative formula
        score = 1.0 + raw / absolute
    else:  # only zero weights counted: 0.0, as autorubric and rubric; nothing: None
        score = 0.0 if counted else None
    if score is not None:
        score = max(0.0, min(1.0, score))
    return score, raw, counted


def _in_order(values: Iterable[float]) -> float:
    """``0.0 + v1 + v2 + ...`` left to right, as a plain Python loop (or 3.11's sum) adds."""
    total = 0.0
    for v in values:
        total += v
    return total
