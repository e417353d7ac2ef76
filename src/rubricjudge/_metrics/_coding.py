"""Turning verdicts into level codes, and the N/A modes.

A criterion's verdicts become integer codes so every metric can work on arrays:
binary criteria have levels ``UNMET, MET``; multi-choice criteria have their
scored options as levels (ordinal ones sorted by value, nominal ones in option
order). N/A means CANNOT_ASSESS or an N/A option, on either side.

N/A modes (``na_mode``):

- ``exclude``: a pair with N/A on either side is left out of every metric.
- ``as_unmet``: N/A counts as the worst outcome: UNMET (MET on a penalty
  criterion, whose weight is negative), or the criterion's worst scored option
  (``Criterion.worst_scored_option``), the same rule scoring uses for "fail".
- ``category``: N/A is one more label for the label-based metrics (accuracy,
  kappa, MCC, per-label precision/recall/F1, the confusion matrix); the
  order-based ones (adjacent accuracy, weighted kappa, Spearman, Kendall,
  MAE/RMSE) leave such pairs out, as N/A has no place on the scale.

A judge error or a missing judgment is never a verdict: such pairs are left out
in every mode and counted apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .._model._reports import CriterionReport, OptionSelection
from .._model._rubric import Criterion, CriterionVerdict
from .._model._verdicts import parse_verdict

__all__ = ["MISSING", "NA", "CriterionCoder", "NaMode", "na_modes"]

NaMode = Literal["exclude", "as_unmet", "category"]
MISSING = -1
NA = -2
CriterionKind = Literal["binary", "ordinal", "nominal"]


def na_modes() -> tuple[str, ...]:
    """Return the valid ``na_mode`` values."""
    return ("exclude", "as_unmet", "category")


@dataclass
class CriterionCoder:
    """Codes one criterion's verdicts as level indices (``NA`` / ``MISSING`` otherwise)."""

    criterion: Criterion
    kind: CriterionKind
    labels: list[str]
    option_level: dict[int, int]
    worst_level: int

    @classmethod
    def for_criterion(cls, criterion: Criterion) -> CriterionCoder:
        """Build the coder of ``criterion`` (a leaf)."""
        if not criterion.is_multi_choice:
            worst = 0 if criterion.weight >= 0 else 1
            return cls(criterion, "binary", ["UNMET", "MET"], {}, worst)
        opts = criterion.options or []
        scored = [i for i, o in enumerate(opts) if not o.na]
        kind: CriterionKind = "nominal" if criterion.scale_type == "nominal" else "ordinal"
        if kind == "ordinal":
            scored = sorted(scored, key=lambda i: opts[i].value)
        level = {opt_index: pos for pos, opt_index in enumerate(scored)}
        worst = level[criterion.worst_scored_option()[0]]
        return cls(criterion, kind, [opts[i].label for i in scored], level, worst)

    def code_report(self, report: CriterionReport | None) -> int:
        """Code a judge's (or a human's) report; ``MISSING`` for errors and gaps."""
        if report is None:
            return MISSING
        return self.code_parts(report.verdict, report.selection, report.error)

    def code_parts(
        self, verdict: CriterionVerdict | None, selection: OptionSelection | None, error: Any
    ) -> int:
        """Code a verdict or option selection (a report's or an ensemble vote's)."""
        if error is not None:
            return MISSING
        if selection is not None:
            if selection.na:
                return NA
            return self.option_level.get(selection.index, MISSING)
        if verdict is CriterionVerdict.CANNOT_ASSESS:
            return NA
        if self.kind != "binary":
            return MISSING
        if verdict is CriterionVerdict.MET:
            return 1
        if verdict is CriterionVerdict.UNMET:
            return 0
        return MISSING

    def code_value(self, value: Any) -> int:
        """Code a ground-truth value (verdict or option label); None is ``MISSING``."""
        if value is None:
            return MISSING

        return self.code_report(parse_verdict(self.criterion, value))

    def apply_mode(self, code: int, mode: NaMode, *, ordered: bool) -> int:
        """Map a code for a metric family under ``mode``; negative means "leave out".

        ``ordered`` is True for the order-based metrics, which never take N/A as a level.
        """
        if code != NA:
            return code
        if mode == "as_unmet":
            return self.worst_level
        if mode == "category" and not ordered:
            return len(self.labels)
        return MISSING
