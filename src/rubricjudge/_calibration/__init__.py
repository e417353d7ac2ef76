"""Calibration models: how a judge's verdicts map to human labels, and fitting them."""

from ._groups import Calibration, CalibrationGroup, criterion_id
from ._train import Sample, fit_groups

__all__ = ["Calibration", "CalibrationGroup", "Sample", "criterion_id", "fit_groups"]
