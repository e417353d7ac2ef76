"""``evaluate``: grade every item of a dataset, with a run store, through the run driver.

:func:`evaluate` checks its arguments and hands :func:`~rubricjudge._runs._drive.drive`
the dataset's plan: the items in scope, their fingerprints, a copy of the dataset
for the run directory, and where each outcome goes. The driver grades them with
bounded concurrency and commits every judgment and every finished item to the run
store as it completes (see ``_store``); ``resume`` skips finished items and
replays finished judgments.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .._datasets._io import _header, _item_to_dict
from .._errors import ConfigError
from .._model._reports import EvaluationReport
from .._version import __version__
from ._batch_options import BatchOptions
from ._drive import RunOptions, RunPlan, drive
from ._engine import DATASET_COPY, RunSession
from ._fingerprint import dataset_fingerprints, item_keys
from ._job import Job, RunGrader
from ._progress import ProgressArg
from ._remote import Executor
from ._result import ItemOutcome, RunResult
from ._store import RunStore, StoredItem
from ._summary import RunSummary

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
    grader: RunGrader,
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
    batch = BatchOptions() if batch_api is True else batch_api or None
    meta = {
        "dataset_size": str(size),
        "items_in_scope": str(scope),
        "rubricjudge_version": __version__,
    }
    if dataset_source is not None:
        meta["dataset_source"] = dataset_source

    plan = _DatasetPlan(dataset, keys, scope, meta, keep_reports=run_dir is None)
    options = RunOptions(run_dir, resume, force, concurrency, batch, executor, progress)
    summary = await drive(grader, plan, options)
    done = [o for o in plan.outcomes if o is not None]
    rd = Path(run_dir) if run_dir is not None else None
    return RunResult(done, summary, dataset_size=size, run_dir=rd)


class _DatasetPlan(RunPlan[RunSummary]):
    """The plan of :func:`evaluate`: the first ``scope`` items of a dataset, outcomes in order."""

    reads_stored_reports = True

    def __init__(
        self,
        dataset: Any,
        keys: list[str],
        scope: int,
        meta: dict[str, str],
        *,
        keep_reports: bool,
    ) -> None:
        self.total = self._scope = scope
        self.meta = meta
        self.outcomes: list[ItemOutcome | None] = [None] * scope
        self._dataset = dataset
        self._keys = keys
        self._keep_reports = keep_reports  # without a run store, the result holds them

    def jobs(self, finished: set[str]) -> Iterator[Job]:
        """The items in scope not finished yet."""
        keys = self._keys
        return (self._job(i) for i in range(self._scope) if keys[i] not in finished)

    def _job(self, index: int) -> Job:
        dataset = self._dataset
        item = dataset.items[index]
        get_query = getattr(dataset, "get_item_query", None)
        query = get_query(index) if callable(get_query) else getattr(item, "query", None)
        return Job(
            index=index,
            key=self._keys[index],
            rubric=dataset.get_item_rubric(index),
            submission=item.submission,
            query=query,
            reference=dataset.get_item_reference_submission(index),
        )

    def fingerprints(self) -> dict[str, str]:
        """The dataset's fingerprint and its rubric's."""
        return dataset_fingerprints(self._dataset)

    def prepared(self, store: RunStore) -> None:
        """Copy the dataset into the run directory."""
        _save_dataset(self._dataset, store.run_dir)

    def stored(self, session: RunSession[RunGrader], item: StoredItem) -> None:
        """Take an item finished earlier as it was; its report counts in the summary."""
        self.outcomes[item.index] = ItemOutcome(
            item.key, item.index, "done", item.score, item.error
        )
        if item.report_json is not None:
            report = EvaluationReport.model_validate_json(item.report_json)
            session.builder.add_report(item.key, report)

    def done(self, job: Job, outcome: ItemOutcome, report: EvaluationReport | None) -> None:
        """Keep the outcome (and its report when there is no store)."""
        outcome.report = report if self._keep_reports else None
        self.outcomes[job.index] = outcome

    def finish(self, session: RunSession[RunGrader]) -> RunSummary:
        """The run's summary."""
        return session.summary()


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
        with tmp.open("w", encoding="utf-8") as f:
            f.write(json.dumps(_header(dataset), ensure_ascii=False) + "\n")
            for item in dataset.items:
                f.write(json.dumps(_item_to_dict(item), ensure_ascii=False) + "\n")
    except Exception:  # a copy is a convenience; the run does not depend on it
        tmp.unlink(missing_ok=True)
        return
    tmp.replace(path)


def evaluate_sync(dataset: Any, grader: RunGrader, **options: Any) -> RunResult:
    """Run :func:`evaluate` to completion from synchronous code.

    Raises:
        ConfigError: called inside a running event loop (await ``evaluate`` there).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(evaluate(dataset, grader, **options))
    raise ConfigError("evaluate_sync() was called inside a running event loop; await evaluate()")
