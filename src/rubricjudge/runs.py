"""Runs over datasets that survive crashes: ``evaluate``, calibration, results and summaries.

:func:`load_run` reads a finished run (a run directory, or the JSONL of ``grade -o``)
and :func:`export_rows` flattens it to one row per item and criterion, as
``rubricjudge export`` writes them.
"""

from __future__ import annotations

from ._runs._batch_options import BatchOptions
from ._runs._calibrate import calibrate
from ._runs._evaluate import evaluate, evaluate_sync
from ._runs._export import export_rows, load_run
from ._runs._read import GradedRun
from ._runs._result import ItemOutcome, RunResult
from ._runs._summary import RunSummary

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
