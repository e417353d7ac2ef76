"""Runs over datasets that survive crashes: ``evaluate``, calibration, results and summaries.

:func:`load_run` reads a finished run (a run directory, or the JSONL of ``grade -o``)
and :func:`export_rows` flattens it to one row per item and criterion, as
``rubricjudge export`` writes them.
"""

from __future__ import annotations

from ._runs import (
    BatchOptions,
    GradedRun,
    ItemOutcome,
    RunResult,
    RunSummary,
    calibrate,
    evaluate,
    evaluate_sync,
    export_rows,
    load_run,
)

__all__ = [
    "BatchOptions",
    "GradedRun",
    "ItemOutcome",
    "RunResult",
    "RunSummary",
    "calibrate",
    "evaluate",
    "evaluate_sync",
    "export_rows",
    "load_run",
]
