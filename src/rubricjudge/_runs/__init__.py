"""Batch evaluation runs that survive crashes: ``evaluate``, the run store, summaries."""

from ._batch_run import BatchOptions
from ._calibrate import calibrate, pick_training
from ._evaluate import evaluate, evaluate_sync
from ._result import ItemOutcome, RunResult
from ._summary import RunSummary

__all__ = [
    "BatchOptions",
    "ItemOutcome",
    "RunResult",
    "RunSummary",
    "calibrate",
    "evaluate",
    "evaluate_sync",
    "pick_training",
]
