"""Fingerprints of what a run depends on: the dataset, the rubric and the judges.

A run directory remembers them; resuming against something different is refused
(unless forced), since finished results would no longer match the inputs.
Ground-truth labels and descriptions are not part of the dataset fingerprint:
they do not change what a judge is asked, only what metrics compare with.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

__all__ = [
    "graded_this_dataset",
    "dataset_fingerprint",
    "dataset_fingerprints",
    "describe_grader",
    "describe_judge",
    "fingerprint",
    "item_keys",
]


def fingerprint(value: Any) -> str:
    """Return a short stable hash of JSON-able data."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def item_keys(items: Any) -> list[str]:
    """How a run names each item of a dataset: its id, else ``#index``, all unique.

    See ``_datasets._dataset.item_keys`` (an id spelt ``#1`` does not take the name
    of the unnamed item at index 1).
    """
    # start-up: `rubricjudge --help` loads this module (for `fingerprint`), and the
    # datasets package would bring the rubric formats with it
    from .._datasets._dataset import item_keys as keys

    return keys(items)


def _dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    media = getattr(value, "media", None)
    if media:  # a submission with images: their bytes' hashes, not their names
        conversation = getattr(value, "conversation", None)
        return {
            "text": _dump(conversation) if conversation is not None else value.output,
            "thinking": getattr(value, "thinking", ""),
            "media": [[p.kind, p.sha256] for p in media],
        }
    return value


def dataset_fingerprint(dataset: Any) -> str:
    """Return the fingerprint of what a judge is asked about a dataset's items."""
    h = hashlib.sha256()
    for i, (item, key) in enumerate(zip(dataset.items, item_keys(dataset.items), strict=True)):
        row = {
            "key": key,
            "submission": _dump(getattr(item, "submission", None)),
            "query": getattr(item, "query", None),
            "reference": _dump(dataset.get_item_reference_submission(i)),
            "rubric": _dump(getattr(item, "rubric", None)),
        }
        h.update(json.dumps(row, sort_keys=True, ensure_ascii=False, default=str).encode())
    h.update(str(getattr(dataset, "prompt", "")).encode())
    return h.hexdigest()[:16]


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool | enum.Enum)


def describe_grader(grader: object, judges: list[Any]) -> dict[str, Any]:
    """Describe a grader's configuration: its type, judges and simple settings."""
    custom = getattr(grader, "config_fingerprint", None)
    if callable(custom):
        return {"type": type(grader).__name__, "custom": custom(), "judges": judges}
    settings: dict[str, Any] = {}
    for k, v in sorted(getattr(grader, "__dict__", {}).items()):
        if k.startswith("_") or "concurrency" in k:
            continue  # private state, and limits that do not change any answer
        if _scalar(v):
            settings[k] = v.value if isinstance(v, enum.Enum) else v
        elif isinstance(v, BaseModel):
            settings[k] = v.model_dump(mode="json")
    return {"type": type(grader).__name__, "judges": judges, "settings": settings}


def dataset_fingerprints(dataset: Any) -> dict[str, str]:
    """Return the fingerprints of a dataset run's inputs, by what they cover.

    The run driver adds the grader's (``"judge configuration"``, :func:`describe_grader`).
    """
    rubric = getattr(dataset, "rubric", None)
    return {"dataset": dataset_fingerprint(dataset), "rubric": fingerprint(_dump(rubric))}


def describe_judge(judge: Any) -> dict[str, Any]:
    """Describe a judge: its name and, when it exposes one, its configuration (no secrets)."""
    out: dict[str, Any] = {"name": getattr(judge, "name", type(judge).__name__)}
    config = getattr(judge, "config", None)
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        secret = {
            "api_key",
            "extra_headers",
            "concurrency",
            "requests_per_minute",
            "tokens_per_minute",
            "timeout_s",
            "max_retries",
            "cache",
        }
        out["config"] = {
            f.name: getattr(config, f.name)
            for f in dataclasses.fields(config)
            if f.name not in secret
            # absent unless set: runs from before media budgets keep their fingerprint
            and not (f.name == "media_budget" and getattr(config, f.name) is None)
        }
    return out


def graded_this_dataset(run_dir: str | Path, dataset: Any) -> bool:
    """Whether the run in ``run_dir`` graded ``dataset``.

    True for a run from before fingerprints were kept; labels are not part of it.
    """
    from ._store import RunStore  # start-up, as above: the store loads sqlite3

    store = RunStore(Path(run_dir))
    try:
        expected = store.meta().get("fingerprint:dataset")
    finally:
        store.close()
    return expected is None or dataset_fingerprint(dataset) == expected
