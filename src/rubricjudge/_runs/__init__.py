"""Batch evaluation runs that survive crashes: ``evaluate``, the run store, summaries.

The names load on first use: importing one module of this package (the CLI's
``_runs._fingerprint``, say) must not load the batch APIs and their SDKs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from ._batch_run import BatchOptions
    from ._calibrate import calibrate, pick_training
    from ._evaluate import evaluate, evaluate_sync
    from ._export import export_rows, load_run
    from ._read import GradedRun
    from ._result import ItemOutcome, RunResult
    from ._summary import RunSummary

_LAZY: dict[str, str] = {
    "BatchOptions": "._batch_run",
    "calibrate": "._calibrate",
    "pick_training": "._calibrate",
    "evaluate": "._evaluate",
    "evaluate_sync": "._evaluate",
    "export_rows": "._export",
    "load_run": "._export",
    "GradedRun": "._read",
    "ItemOutcome": "._result",
    "RunResult": "._result",
    "RunSummary": "._summary",
}


__getattr__, __dir__ = _lazy_exports(__name__, _LAZY, globals())


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
    "pick_training",
]
