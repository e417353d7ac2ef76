"""``evaluate``: grade every item of a dataset, with bounded concurrency and a run store.

A fixed pool of workers pulls items from one iterator, so no more than
``concurrency`` items are in flight and no task exists for an item not yet
started: memory holds the results, not the queue. Every judgment and every
finished item is committed to the run store as it completes (see ``_store``);
``resume`` skips finished items and replays finished judgments.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError
from .._model._reports import EvaluationReport
from .._version import __version__
from ._batch_run import BatchOptions
from ._drive import RunOptions, drive
from ._engine import DATASET_COPY, RunSession
from ._fingerprint import item_keys, run_fingerprints
from ._job import Job
from ._progress import ProgressArg
from ._result import ItemOutcome, RunResult
from ._store import StoredItem

if TYPE_CHECKING:
    from ._remote import Executor

__all__ = ["DATASET_COPY", "DEFAULT_CONCURRENCY", "evaluate", "evaluate_sync"]

DEFAULT_CONCURRENCY = 16


def _keys(dataset: Any) -> list[str]:
    keys = item_keys(dataset.items)
    seen: dict[str, int] = {}
    for i, k in enumerate(keys):
        if k in seen:
            raise ConfigError(
                f"dataset items {seen[k]} and {i} share the id {k!r}; item ids must be unique"
            )
        seen[k] = i
    return keys


async def evaluate(
    dataset: Any,
    grader: Any,
    *,
    run_dir: str | Path | None = None,
    resume: bool = False,
    force: bool = False,
    max_items: int | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: ProgressArg = None,
    dataset_source: str | None = None,
    batch_api: bool | BatchOptions = False,
    executor: Executor | None = None,
) -> RunResult:
    """Grade every item of ``dataset`` with ``grader``; see the module docstring.

    Args:
        dataset: a :class:`RubricDataset`.
        grader: anything with ``grade(rubric, to_grade, *, query, reference_submission,
            item_id)`` returning an :class:`EvaluationReport` (def or async def).
        run_dir: directory of the run store; None keeps everything in memory.
        resume: continue the run in ``run_dir``, skipping finished items.
        force: run even though ``run_dir`` holds a run of other inputs (its item
            results are discarded), or start an existing run over (without ``resume``).
        max_items: grade only the first ``max_items`` items.
        concurrency: how many items are graded at once (the grader bounds criteria
            and the judge layer bounds calls).
        progress: None draws a bar on stderr when it is a terminal; True/False force
            it; a callable gets ``(done, total)`` after each item.
        dataset_source: where the dataset came from (stored for ``rubricjudge metrics``).
        batch_api: answer the judgments through the OpenAI Batch API or Anthropic's
            Message Batches at half price
            (needs ``run_dir``; a :class:`BatchOptions` sets polling and batch size).
        executor: grade on these workers (``rubricjudge.integrations.ray.RayExecutor``)
            instead of in this process; ``grader`` must then be the grader its spec
            builds. This process still commits every judgment and item, so ``resume``
            works the same; ``concurrency`` then applies to each worker.

    Raises:
        UsageError: a bad argument, or a run directory that does not fit (see ``force``).
    """
    if concurrency < 1:
        raise ConfigError(f"concurrency {concurrency!r} must be at least 1")
    if max_items is not None and max_items < 0:
        raise ConfigError(f"max_items {max_items!r} is negative")
    keys = _keys(dataset)
    size = len(keys)
    scope = size if max_items is None else min(max_items, size)
    outcomes: list[ItemOutcome | None] = [None] * scope
    batch = BatchOptions() if batch_api is True else batch_api or None
    meta = {
        "dataset_size": str(size),
        "items_in_scope": str(scope),
        "rubricjudge_version": __version__,
    }
    if dataset_source is not None:
        meta["dataset_source"] = dataset_source

    def todo(finished: set[str]) -> Iterator[Job]:
        return (_job(dataset, i, keys[i]) for i in range(scope) if keys[i] not in finished)

    def stored(session: RunSession, item: StoredItem) -> None:
        outcomes[item.index] = ItemOutcome(item.key, item.index, "done", item.score, item.error)
        if item.report_json is not None:
            report = EvaluationReport.model_validate_json(item.report_json)
            session.builder.add_report(item.key, report)

    def keep(job: Job, outcome: ItemOutcome, report: EvaluationReport | None) -> None:
        outcome.report = report if run_dir is None else None
        outcomes[job.index] = outcome

    summary = await drive(
        grader,
        todo,
        total=scope,
        fingerprints=lambda described: run_fingerprints(dataset, grader, described),
        meta=meta,
        options=RunOptions(run_dir, resume, force, concurrency, batch, executor, progress),
        on_done=keep,
        finish=lambda session: session.summary(),
        on_stored=stored,
        prepared=lambda store: _save_dataset(dataset, store.run_dir),
    )
    done = [o for o in outcomes if o is not None]
    rd = Path(run_dir) if run_dir is not None else None
    return RunResult(done, summary, dataset_size=size, run_dir=rd)


def _job(dataset: Any, index: int, key: str) -> Job:
    item = dataset.items[index]
    get_query = getattr(dataset, "get_item_query", None)
    query = get_query(index) if callable(get_query) else getattr(item, "query", None)
    return Job(
        index=index,
        key=key,
        rubric=dataset.get_item_rubric(index),
        submission=item.submission,
        query=query,
        reference=dataset.get_item_reference_submission(index),
    )


def _save_dataset(dataset: Any, run_dir: Path) -> None:
    """Keep a copy of the dataset in the run directory, for ``rubricjudge metrics``.

    Rewritten by every session: ground truth is not part of the run's fingerprint,
    so a resume with corrected labels is allowed, and the copy must hold them.
    Written as JSON Lines one item at a time, so the copy costs no memory in
    proportion to the dataset, and swapped in whole. A dataset that cannot be
    written is not copied; ``rubricjudge metrics`` then needs ``--dataset``.
    """
    path = run_dir / DATASET_COPY
    tmp = run_dir / "dataset.partial.jsonl"
    try:
        from .._datasets._io import _header, _item_to_dict

        with tmp.open("w", encoding="utf-8") as f:
            f.write(json.dumps(_header(dataset), ensure_ascii=False) + "\n")
            for item in dataset.items:
                f.write(json.dumps(_item_to_dict(item), ensure_ascii=False) + "\n")
    except Exception:  # a copy is a convenience; the run does not depend on it
        tmp.unlink(missing_ok=True)
        return
    tmp.replace(path)


def evaluate_sync(dataset: Any, grader: Any, **options: Any) -> RunResult:
    """Run :func:`evaluate` to completion from synchronous code.

    Raises:
        ConfigError: called inside a running event loop (await ``evaluate`` there).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(evaluate(dataset, grader, **options))
    raise ConfigError("evaluate_sync() was called inside a running event loop; await evaluate()")
