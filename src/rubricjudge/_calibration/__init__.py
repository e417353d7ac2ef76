"""Calibration models: how a judge's verdicts map to human labels, and fitting them."""
