"""Which calibration a grader applies, and applying it to one judge's answer.

A grader is given a calibration (or its file), or by default uses the one its
judge ships for the reply layout it asks in (:func:`judge_calibration`); a given
one applies only to the judge it was fitted for (:func:`fitted_for`). The judge's
own answer is kept in the report's ``calibration`` record
(``raw_verdict`` / ``raw_selection``), its own probabilities stay in
``probabilities``, and ``confidence`` becomes the calibrated probability of the
answer that counts.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from .._errors import ConfigError
from .._model._reports import CalibrationRecord, OptionSelection
from .._model._rubric import Criterion, CriterionVerdict
from ._judging import Outcome
from ._options import VerdictMethod

if TYPE_CHECKING:
    from .._calibration._groups import Calibration

__all__ = [
    "calibrate_outcome",
    "fitted_for",
    "judge_calibration",
    "load_calibration",
    "with_calibration_examples",
]


def load_calibration(given: Calibration | str | os.PathLike[str] | None) -> Calibration | None:
    """The calibration given to a grader, read from its file when given a path."""
    if given is None:
        return None
    from .._calibration._groups import Calibration  # numpy: loaded only when calibrating

    return given if isinstance(given, Calibration) else Calibration.load(given)


def judge_calibration(path: str | os.PathLike[str], method: VerdictMethod) -> Calibration | None:
    """The calibration a judge ships (at ``path``), if it was fitted for ``method``."""
    from .._calibration._groups import Calibration  # numpy: loaded only when calibrating

    cal = Calibration.load(path)
    return cal if cal.verdict_method == method else None


def with_calibration_examples(calibration: Calibration | None, criterion: Criterion) -> Criterion:
    """``criterion`` with the examples the calibration chose for it, when it has none."""
    if calibration is None or criterion.examples:
        return criterion
    chosen = calibration.examples_for(criterion)
    return criterion.model_copy(update={"examples": chosen}) if chosen else criterion


def fitted_for(
    calibration: Calibration,
    judge_name: str,
    method: VerdictMethod,
    judge_names: Callable[[], list[str]],
) -> bool:
    """Whether ``calibration`` was fitted for the judge ``judge_name`` asked in ``method``.

    ``judge_names()`` lists the grader's judges (the escalation judge included).

    Raises:
        ConfigError: no judge of the grader is the calibration's judge, or the reply
            layout differs from the one it was fitted with.
    """
    if judge_name != calibration.judge:
        names = judge_names()
        if calibration.judge not in names:
            raise ConfigError(
                f"the calibration was fitted for the judge {calibration.judge!r}, but this "
                f"grader's judges are {names}; calibrate this judge (rubricjudge calibrate "
                "--judge ...) or use its calibration file"
            )
        return False
    if method != calibration.verdict_method:
        raise ConfigError(
            f"the calibration was fitted with --verdict-method {calibration.verdict_method}, "
            f"but this grader asks with {method}; use the same method or calibrate again"
        )
    return True


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
