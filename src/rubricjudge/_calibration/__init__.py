"""Calibrating a judge on human labels (``rubricjudge calibrate``)."""

from ._calibrate import calibrate, pick_training
from ._model import Calibration, CalibrationGroup, criterion_id
from ._train import Sample, fit_groups

__all__ = [
    "Calibration",
    "CalibrationGroup",
    "Sample",
    "calibrate",
    "criterion_id",
    "fit_groups",
    "pick_training",
]
