"""The one run driver under ``evaluate`` and ``grade``: store, resumption, batches, workers.

:func:`drive` opens a :class:`RunSession` on the grader, checks the run directory
against this run's fingerprints (``resume`` / ``force``), notes the items already
finished and the judgments already stored, answers the judgments through a batch
API first when asked, then grades the jobs not yet finished with a fixed pool of
workers. ``evaluate`` collects the outcomes of a dataset (``_evaluate``);
:func:`grade_items` writes each report of a stream of items in input order.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from .._errors import ConfigError
from .._model._reports import EvaluationReport
from .._trace import span
from .._version import __version__
from ._batch_judge import BatchJudge
from ._batch_run import BatchOptions, check_batchable, refuse_open_batches, run_batches
from ._engine import OnDone, RunSession, prepare_store
from ._fingerprint import describe_grader, fingerprint
from ._job import Job
from ._ordered import OrderedWriter
from ._progress import ProgressArg, make_progress
from ._read import TRAINING_META, training_ids
from ._recording import RecordingJudge
from ._remote import Executor
from ._store import RunStore, StoredItem

__all__ = ["GradeItem", "RunOptions", "drive", "grade_items"]

T = TypeVar("T")


@dataclass(frozen=True)
class RunOptions:
    """How a run goes: where it is stored, whether it resumes, how it grades."""

    run_dir: str | Path | None = None
    resume: bool = False
    force: bool = False
    concurrency: int = 16
    batch: BatchOptions | None = None
    executor: Executor | None = None
    progress: ProgressArg = None


async def drive(
    grader: Any,
    jobs: Callable[[set[str]], Iterator[Job]],
    *,
    total: int | None,
    fingerprints: Callable[[list[Any]], dict[str, str]],
    meta: Mapping[str, str],
    options: RunOptions,
    on_done: OnDone,
    finish: Callable[[RunSession], T],
    on_stored: Callable[[RunSession, StoredItem], None] | None = None,
    prepared: Callable[[RunStore], None] | None = None,
    batch_jobs: Callable[[set[str]], Iterator[Job]] | None = None,
    room: Callable[[], Awaitable[None]] | None = None,
) -> T:
    """Grade ``jobs(finished)`` with ``grader``; return ``finish(session)``.

    Args:
        grader: the grader (its judges are wrapped to record and replay judgments).
        jobs: the jobs to grade, given the keys of the items already finished.
        total: how many items the run holds (None: unknown, streamed).
        fingerprints: this run's inputs, given the session's judge descriptions;
            a stored run of other inputs needs ``force``.
        meta: what the run directory records about the run.
        options: where and how the run goes.
        on_done: called with each job, its outcome and report as it finishes.
        finish: what to return, read from the session before it closes.
        on_stored: called with the session and each item its run directory holds finished.
        prepared: called with the store once it is checked (e.g. to copy the dataset).
        batch_jobs: the jobs whose judgments batches answer first (default ``jobs``).
        room: awaited before each job is taken (a consumer that bounds what is pending).

    Raises:
        ConfigError: batches without a run directory, or with an executor.
        UsageError: a run directory that does not fit (see ``RunOptions.force``).
    """
    batch, executor = options.batch, options.executor
    if batch is not None:
        check_batchable(grader)
        if options.run_dir is None:
            raise ConfigError(
                "batch_api needs run_dir (--batch-api needs --run-dir): batch ids are committed "
                "there, so a killed run resumes by polling the batches it already created"
            )
        if executor is not None:
            raise ConfigError("batch_api and executor do not go together: choose one")
    wrapper = RecordingJudge if batch is None else BatchJudge
    with (
        span("rubricjudge.run") as run_span,
        RunSession(
            grader, options.run_dir, total=total, wrapper=wrapper, executor=executor
        ) as session,
    ):
        if run_span is not None:
            _describe_run(run_span, session, meta, options)
        store = session.store
        finished: set[str] = set()
        if store is not None:
            prepare_store(
                store,
                fingerprints(session.described),
                resume=options.resume,
                force=options.force,
            )
            if batch is None:
                refuse_open_batches(store)
            store.set_meta({**meta, TRAINING_META: json.dumps(training_ids(grader))})
            session.load_stored_judgments()
            if prepared is not None:
                prepared(store)
            for stored in store.iter_items(with_reports=on_stored is not None):
                if stored.status != "done" or (total is not None and stored.index >= total):
                    continue
                finished.add(stored.key)
                if on_stored is not None:
                    on_stored(session, stored)
            session.builder.resumed = len(finished)
        lanes = options.concurrency * (executor.width if executor is not None else 1)
        if total is not None:
            lanes = min(lanes, total) or 1
        if batch is not None:
            todo = batch_jobs or jobs
            runs = min(options.concurrency, total) if total is not None else options.concurrency
            await run_batches(
                session,
                lambda: todo(finished),
                batch,
                concurrency=runs or 1,
                progress=options.progress,
            )
        bar = make_progress(options.progress, total, len(finished))
        await session.run(jobs(finished), concurrency=lanes, bar=bar, on_done=on_done, room=room)
        if run_span is not None:
            _describe_outcome(run_span, session)
        return finish(session)


def _describe_run(
    s: Any, session: RunSession, meta: Mapping[str, str], options: RunOptions
) -> None:
    """The run span's attributes known at its start."""
    attrs: dict[str, Any] = {
        "rubricjudge.judges": [w.name for w in session.wrappers],
        "rubricjudge.concurrency": options.concurrency,
    }
    if options.run_dir is not None:
        attrs["rubricjudge.run_dir"] = str(options.run_dir)
    for key in ("rubric", "dataset", "command"):
        if meta.get(key):
            attrs[f"rubricjudge.{key}"] = str(meta[key])
    s.set_attributes(attrs)


def _describe_outcome(s: Any, session: RunSession) -> None:
    """The run span's attributes known at its end: what was graded and what failed."""
    summary = session.summary()
    s.set_attributes(
        {
            "rubricjudge.items_graded": summary.items_graded,
            "rubricjudge.items_failed": summary.items_failed,
            "rubricjudge.judge_calls": summary.judge_calls,
        }
    )
    if summary.score_mean is not None:
        s.set_attribute("rubricjudge.score_mean", summary.score_mean)


class GradeItem(Protocol):
    """One submission of a stream to grade (the CLI's input lines)."""

    @property
    def id(self) -> str:
        """The item's id (unique within a run directory)."""

    @property
    def submission(self) -> Any:
        """What is graded."""

    @property
    def query(self) -> str | None:
        """The question the submission answers, if any."""

    @property
    def reference(self) -> Any:
        """A reference answer, if any."""


async def grade_items(
    rubric: Any,
    items: Callable[[], Iterable[GradeItem]],
    grader: Any,
    emit: Callable[[EvaluationReport], None],
    *,
    total: int | None,
    input_fingerprint: str,
    options: RunOptions,
) -> dict[str, Any]:
    """Grade every item against ``rubric``; ``emit`` each report in input order.

    ``items()`` is called again for every pass (batches first, then grading), so a
    file is streamed, never held. With a run directory, items finished in an
    earlier session are read back from the store when their turn comes. Returns
    the per-server numbers of the judges' fleets.
    """
    window = 4 * max(1, options.concurrency)
    store_box: list[RunStore | None] = [None]

    def read_back(result: EvaluationReport | str) -> None:
        if isinstance(result, str):  # an item finished in an earlier session
            store = store_box[0]
            assert store is not None
            stored = store.get_report(result)
            report = (
                EvaluationReport.model_validate_json(stored)
                if stored is not None
                else EvaluationReport(score=None, error="stored report missing", id=result)
            )
        else:
            report = result
        emit(report)

    writer: OrderedWriter[EvaluationReport | str] = OrderedWriter(read_back, window=window)

    def jobs(finished: set[str]) -> Iterator[Job]:
        for it in items():
            pos = writer.take()
            if it.id in finished:
                writer.put(pos, it.id)  # read back from the store when its turn comes
                continue
            yield Job(pos, it.id, rubric, it.submission, it.query, it.reference)

    def batch_jobs(finished: set[str]) -> Iterator[Job]:
        for pos, it in enumerate(items()):
            if it.id not in finished:
                yield Job(pos, it.id, rubric, it.submission, it.query, it.reference)

    def done(job: Job, outcome: Any, report: EvaluationReport | None) -> None:
        if report is None:  # grading raised: recorded in the item's line
            report = EvaluationReport(score=None, error=outcome.error, id=job.key)
        writer.put(job.index, report)

    def fingerprints(described: list[Any]) -> dict[str, str]:
        return {
            "input": input_fingerprint,
            "rubric": fingerprint(rubric.model_dump(mode="json", exclude_none=True)),
            "judge configuration": fingerprint(describe_grader(grader, described)),
        }

    def keep_store(store: RunStore) -> None:
        store_box[0] = store

    return await drive(
        grader,
        jobs,
        total=total,
        fingerprints=fingerprints,
        meta={"command": "grade", "rubricjudge_version": __version__},
        options=options,
        on_done=done,
        finish=lambda session: session.endpoint_stats(),
        prepared=keep_store,
        batch_jobs=batch_jobs,
        room=writer.room,
    )
