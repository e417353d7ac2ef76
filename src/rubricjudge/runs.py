"""Runs over datasets that survive crashes: ``evaluate``, calibration, results and summaries."""

from __future__ import annotations

from ._runs import (
    BatchOptions,
    ItemOutcome,
    RunResult,
    RunSummary,
    calibrate,
    evaluate,
    evaluate_sync,
)

__all__ = [
    "BatchOptions",
    "ItemOutcome",
    "RunResult",
    "RunSummary",
    "calibrate",
    "evaluate",
    "evaluate_sync",
]
