"""Batch evaluation runs that survive crashes: ``evaluate``, the run store, summaries.

Where a run goes: ``_drive`` is the one run driver. Its :func:`drive` takes a
grader (a ``_job.RunGrader``), a plan (what the run grades and keeps: ``_evaluate``
has the dataset's, ``_drive.grade_items`` the CLI's stream of items) and the run's
options; it checks the run directory (``_store``) for ``resume`` / ``force``, has
batches answer first (``_batch_run``) and grades the rest. The other modules are
its parts: ``_engine.RunSession`` is what one run holds (lock, store, the grader
with its judges wrapped to record and replay, summary) and its pool of workers;
``_pool`` is a pool without a store for ``grade --pairwise`` / ``--group``;
``_remote`` grades on other workers (Ray's executor).

The names load on first use: importing one module of this package (the CLI's
``_runs._fingerprint``, say) must not load the batch APIs and their SDKs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from ._batch_options import BatchOptions
    from ._calibrate import calibrate, pick_training
    from ._evaluate import evaluate, evaluate_sync
    from ._export import export_rows, load_run
    from ._read import GradedRun
    from ._result import ItemOutcome, RunResult
    from ._summary import RunSummary

_LAZY: dict[str, str] = {
    "BatchOptions": "._batch_options",
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
