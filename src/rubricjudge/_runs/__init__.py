"""Batch evaluation runs that survive crashes: ``evaluate``, the run store, summaries.

The names load on first use: importing one module of this package (the CLI's
``_runs._fingerprint``, say) must not load the batch APIs and their SDKs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._batch_run import BatchOptions
    from ._calibrate import calibrate, pick_training
    from ._evaluate import evaluate, evaluate_sync
    from ._result import ItemOutcome, RunResult
    from ._summary import RunSummary

_LAZY: dict[str, str] = {
    "BatchOptions": "._batch_run",
    "calibrate": "._calibrate",
    "pick_training": "._calibrate",
    "evaluate": "._evaluate",
    "evaluate_sync": "._evaluate",
    "ItemOutcome": "._result",
    "RunResult": "._result",
    "RunSummary": "._summary",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
