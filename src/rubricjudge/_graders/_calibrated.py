"""Apply a calibration to one judge's answer about one criterion.

The judge's own answer is kept in the report's ``calibration`` record
(``raw_verdict`` / ``raw_selection``), its own probabilities stay in
``probabilities``, and ``confidence`` becomes the calibrated probability of the
answer that counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._model._reports import CalibrationRecord, OptionSelection
from .._model._rubric import Criterion, CriterionVerdict
from ._judging import Outcome

if TYPE_CHECKING:
    from .._calibration._model import Calibration

__all__ = ["calibrate_outcome"]


def calibrate_outcome(calibration: Calibration, criterion: Criterion, out: Outcome) -> None:
    """Re-decide ``out`` from its probabilities with ``calibration`` (in place)."""
    if not out.ok or out.probabilities is None:
        return
    decided = calibration.calibrate(criterion, out.probabilities, out.features)
    if decided is None:
        return
    label, probs, group = decided
    raw_verdict, raw_option = out.verdict, out.option
    raw_selection = out.selection(criterion)
    if criterion.is_multi_choice:
        out.verdict, out.option = None, criterion.find_option_by_label(label)
        out.option_label = label
    else:
        out.verdict, out.option = CriterionVerdict(label), None
    p_met = probs.get("MET") if not criterion.is_multi_choice else probs.get(label)
    out.calibration = CalibrationRecord(
        raw_verdict=raw_verdict,
        raw_selection=raw_selection if isinstance(raw_selection, OptionSelection) else None,
        p_calibrated=p_met,
        threshold=0.5 if len(group.labels) == 2 else None,
        changed=(out.verdict, out.option) != (raw_verdict, raw_option),
        method=calibration.method_for(criterion, out.features),
    )
    out.calibrated = probs
