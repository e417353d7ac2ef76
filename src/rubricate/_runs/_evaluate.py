"""``evaluate``: grade every item of a dataset, with bounded concurrency and a run store.

A fixed pool of workers pulls items from one iterator, so no more than
``concurrency`` items are in flight and no task exists for an item not yet
started: memory holds the results, not the queue. Every judgment and every
finished item is committed to the run store as it completes (see ``_store``);
``resume`` skips finished items and replays finished judgments.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

from .._errors import ConfigError, UsageError
from .._judges._base import Judge
from .._reports import EvaluationReport
from .._version import __version__
from ._bind import bind_judges
from ._fingerprint import describe_judge, item_key, run_fingerprints
from ._lock import RunLock
from ._progress import ProgressArg, make_progress
from ._recording import CURRENT_ITEM, RecordingJudge
from ._result import ItemOutcome, RunResult
from ._store import RunStore
from ._summary import SummaryBuilder

__all__ = ["DATASET_COPY", "DEFAULT_CONCURRENCY", "evaluate", "evaluate_sync"]

DEFAULT_CONCURRENCY = 16
DATASET_COPY = "dataset.jsonl"
_FP = "fingerprint:"


def _keys(dataset: Any) -> list[str]:
    keys = [item_key(item, i) for i, item in enumerate(dataset.items)]
    seen: dict[str, int] = {}
    for i, k in enumerate(keys):
        if k in seen:
            raise ConfigError(
                f"dataset items {seen[k]} and {i} share the id {k!r}; item ids must be unique"
            )
        seen[k] = i
    return keys


def _prepare(store: RunStore, fps: dict[str, str], *, resume: bool, force: bool) -> None:
    """Check a run directory against this run's inputs; clear what ``force`` discards."""
    meta = store.meta()
    fresh = not any(k.startswith(_FP) for k in meta) and store.count_judgments() == 0
    if not fresh:
        where = str(store.run_dir)
        changed = [name for name, fp in fps.items() if meta.get(_FP + name) != fp]
        if not resume and not force:
            done = sum(1 for s in store.item_statuses().values() if s == "done")
            raise UsageError(
                f"run directory {where!r} already holds a run ({done} items finished); "
                "continue it with --resume (resume=True in Python), start it over with --force "
                "(force=True), or use another run directory"
            )
        if changed and not force:
            raise UsageError(
                f"run directory {where!r} was made for a different {' and '.join(changed)}; "
                "resuming would mix results of different inputs. Use another run directory, "
                "or --force (force=True) to discard its item results (with --resume, stored "
                "judgments of prompts that did not change are still reused)"
            )
        if force and (changed or not resume):
            store.clear(judgments=not resume)
            (store.run_dir / DATASET_COPY).unlink(missing_ok=True)
    store.set_meta({_FP + k: v for k, v in fps.items()})


async def _grade(grader: Any, dataset: Any, index: int, key: str) -> EvaluationReport:
    item = dataset.items[index]
    get_query = getattr(dataset, "get_item_query", None)
    query = get_query(index) if callable(get_query) else getattr(item, "query", None)
    result = grader.grade(
        dataset.get_item_rubric(index),
        item.submission,
        query=query,
        reference_submission=dataset.get_item_reference_submission(index),
        item_id=key,
    )
    if inspect.isawaitable(result):
        result = await result
    if not isinstance(result, EvaluationReport):
        raise TypeError(f"grader returned {type(result).__name__}, not an EvaluationReport")
    return result


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
        dataset_source: where the dataset came from (stored for ``rubricate metrics``).

    Raises:
        UsageError: a bad argument, or a run directory that does not fit (see ``force``).
    """
    if concurrency < 1:
        raise ConfigError(f"concurrency {concurrency!r} must be at least 1")
    if max_items is not None and max_items < 0:
        raise ConfigError(f"max_items {max_items!r} is negative")
    started = time.perf_counter()
    keys = _keys(dataset)
    size = len(keys)
    scope = size if max_items is None else min(max_items, size)
    lock = RunLock(run_dir) if run_dir is not None else None
    if lock is not None:
        lock.__enter__()  # released in the finally below
    try:
        store = RunStore(run_dir) if run_dir is not None else None
    except BaseException:
        if lock is not None:
            lock.__exit__(None, None, None)
        raise
    wrappers: list[RecordingJudge] = []
    described: list[Any] = []
    stored_items: set[str] = set()

    def wrap(judge: Judge) -> Judge:
        described.append(describe_judge(judge))
        wrapper = RecordingJudge(judge, store, stored_items=stored_items)
        wrappers.append(wrapper)
        return wrapper

    builder = SummaryBuilder(scope)
    finished: set[str] = set()
    try:
        bound, _ = bind_judges(grader, wrap)
        if store is not None:
            _prepare(
                store, run_fingerprints(dataset, grader, described), resume=resume, force=force
            )
            meta = {
                "dataset_size": str(size),
                "items_in_scope": str(scope),
                "rubricate_version": __version__,
            }
            if dataset_source is not None:
                meta["dataset_source"] = dataset_source
            store.set_meta(meta)
            stored_items.update(store.items_with_judgments())
            _save_dataset(dataset, store.run_dir)
        outcomes: list[ItemOutcome | None] = [None] * scope
        if store is not None:
            for stored in store.iter_items():
                if stored.status != "done" or stored.index >= scope:
                    continue
                finished.add(stored.key)
                outcomes[stored.index] = ItemOutcome(
                    stored.key, stored.index, "done", stored.score, stored.error
                )
                if stored.report_json is not None:
                    builder.add_report(
                        stored.key, EvaluationReport.model_validate_json(stored.report_json)
                    )
            builder.resumed = len(finished)
        bar = make_progress(progress, scope, len(finished))
        pending: Iterator[int] = (i for i in range(scope) if keys[i] not in finished)

        async def one(i: int) -> None:
            key = keys[i]
            token = CURRENT_ITEM.set(key)
            failed = False
            try:
                report = await _grade(bound, dataset, i, key)
            except UsageError:
                raise  # a misconfiguration fails every item alike: stop, keep what is done
            except Exception as e:  # one item's failure is data, the run goes on
                failed = True
                error = f"{type(e).__name__}: {e}"
                if store is not None:
                    store.put_item(key, i, "failed", None, None, error)
                builder.add_failure(key, error)
                outcomes[i] = ItemOutcome(key, i, "failed", None, error)
            else:
                status = "partial" if (report.error_count or report.error) else "done"
                if store is not None:
                    store.put_item(
                        key, i, status, report.score, report.model_dump_json(), report.error
                    )
                builder.add_report(key, report)
                kept = report if store is None else None
                outcomes[i] = ItemOutcome(key, i, status, report.score, report.error, kept)
            finally:
                CURRENT_ITEM.reset(token)
                for w in wrappers:
                    w.forget_item(key)
            bar.advance(failed=failed)

        async def worker() -> None:
            for i in pending:
                await one(i)

        workers = [asyncio.create_task(worker()) for _ in range(min(concurrency, scope) or 1)]
        try:
            await asyncio.gather(*workers)
        except BaseException:
            for t in workers:
                t.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise
        finally:
            bar.close()
        rejected = chain(*(w.rows for w in wrappers))  # all calls without a store; else rejects
        rows = chain(store.judgment_rows(), rejected) if store is not None else rejected
        summary = builder.build(
            rows,
            replayed=sum(w.replayed for w in wrappers),
            wall_s=time.perf_counter() - started,
        )
    finally:
        if store is not None:
            store.close()
        if lock is not None:
            lock.__exit__(None, None, None)
    done = [o for o in outcomes if o is not None]
    rd = Path(run_dir) if run_dir is not None else None
    return RunResult(done, summary, dataset_size=size, run_dir=rd)


def _save_dataset(dataset: Any, run_dir: Path) -> None:
    """Keep a copy of the dataset in the run directory, for ``rubricate metrics``.

    Rewritten by every session: ground truth is not part of the run's fingerprint,
    so a resume with corrected labels is allowed, and the copy must hold them.
    Written as JSON Lines one item at a time, so the copy costs no memory in
    proportion to the dataset, and swapped in whole. A dataset that cannot be
    written is not copied; ``rubricate metrics`` then needs ``--dataset``.
    """
    path = run_dir / DATASET_COPY
    tmp = run_dir / "dataset.partial.jsonl"
    try:
        from .._dataset_io import _header, _item_to_dict

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
