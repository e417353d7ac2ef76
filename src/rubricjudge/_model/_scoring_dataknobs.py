"""The ``dataknobs`` compatibility formula, for ``ScoringPolicy(compat="dataknobs")``.

rubricjudge's own rules treat a failure as "not graded" (see ``_scoring``). The
dataknobs executor instead gives every criterion a number, and this module
reproduces its numbers exactly, for users who must match results they already
have:

* a criterion whose function raised, whose judge failed, whose answer was not a
  level id, or that could not be assessed gets credit 0 (dataknobs' ``error`` and
  ``unable_to_evaluate`` levels score 0.0);
* an option's value is its credit, N/A options included (dataknobs has no N/A);
* ``score = Σ w·s / Σ w`` over every criterion, negative weights included and the
  result not clamped; 0.0 when the weights sum to 0;
* the weighted sum is accumulated left to right, as dataknobs' loop does, and the
  weight total with Neumaier's compensated sum, as ``sum()`` does on Python 3.12+
  (so a score sitting on ``pass_threshold`` is decided the same way).

A parent criterion (dataknobs has none) is credited with the same formula over
its children, so a rubric without subcriteria is untouched by that choice.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ._rubric import CriterionVerdict

if TYPE_CHECKING:
    from ._reports import CriterionReport

__all__ = ["dataknobs_credit", "dataknobs_score", "neumaier_sum"]


def neumaier_sum(values: Iterable[float]) -> float:
    """Sum floats the way CPython 3.12's ``sum()`` does (Neumaier compensation)."""
    total = 0.0
    compensation = 0.0
    for x in values:
        t = total + x
        if abs(total) >= abs(x):
            compensation += (total - t) + x
        else:
            compensation += (x - t) + total
        total = t
    # as CPython: a non-finite compensation (an overflowed sum) is not added
    if compensation and math.isfinite(compensation):
        total += compensation
    return total


def dataknobs_credit(report: CriterionReport) -> float:
    """Credit of one report as dataknobs scores it: anything undecided is 0."""
    if report.children:
        return dataknobs_score(report.children)[0]
    if report.selection is not None:
        return report.selection.value
    if report.scale_score is not None:
        return report.scale_score.value
    return 1.0 if report.verdict is CriterionVerdict.MET else 0.0


def dataknobs_score(reports: Sequence[CriterionReport]) -> tuple[float, float]:
    """(score, weighted sum) of sibling reports with dataknobs' formula."""
    total_weight = neumaier_sum(float(r.criterion.weight) for r in reports)
    weighted = 0.0
    for r in reports:
        weighted += r.criterion.weight * dataknobs_credit(r)
    if total_weight == 0:
        return 0.0, weighted
    return weighted / total_weight, weighted
