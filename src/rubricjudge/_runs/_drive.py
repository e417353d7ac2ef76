"""The run driver: :func:`drive` runs one graded run, for ``evaluate`` and ``grade``.

A :class:`RunPlan` says what a run grades and keeps: ``_evaluate`` has a dataset's
plan, :func:`grade_items` here the plan of a stream of items. :func:`drive` opens a
:class:`~rubricjudge._runs._engine.RunSession` on the grader, checks the run
directory against the run's fingerprints (``resume`` / ``force``), notes the items
already finished and the judgments already stored, has a batch API answer the
judgments first when asked (``_batch_run``), then grades the jobs not yet finished
with the session's pool of workers. The package docstring says what the other
modules of ``_runs`` are.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from .._errors import ConfigError
from .._judges._fleet import EndpointStats
from .._model._reports import EvaluationReport
from .._model._rubric import Rubric
from .._trace import span
from .._version import __version__
from ._batch_judge import BatchJudge
from ._batch_options import BatchOptions, check_batchable, refuse_open_batches
from ._batch_run import run_batches
from ._engine import RunSession, prepare_store
from ._fingerprint import describe_grader, fingerprint
from ._gc import fewer_collections
from ._job import Job, RunGrader
from ._ordered import OrderedWriter
from ._progress import ProgressArg, make_progress
from ._read import TRAINING_META, training_ids
from ._recording import RecordingJudge
from ._remote import Executor
from ._result import ItemOutcome
from ._store import RunStore, StoredItem

__all__ = ["GradeItem", "RunOptions", "RunPlan", "drive", "grade_items"]

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


class RunPlan(ABC, Generic[T]):
    """What one run grades and keeps: :func:`drive` asks, the plan answers.

    Attributes:
        total: how many items the run holds (None: unknown, streamed).
        meta: what the run directory records about the run.
        reads_stored_reports: whether :meth:`stored` needs each stored item's report.
    """

    total: int | None
    meta: Mapping[str, str]
    reads_stored_reports: bool = False

    @abstractmethod
    def jobs(self, finished: set[str]) -> Iterator[Job]:
        """The jobs to grade, given the keys of the items already finished."""

    def batch_jobs(self, finished: set[str]) -> Iterator[Job]:
        """The jobs whose judgments batches answer first (by default :meth:`jobs`)."""
        return self.jobs(finished)

    @abstractmethod
    def fingerprints(self) -> dict[str, str]:
        """This run's inputs; a stored run of other inputs needs ``force``.

        The driver adds the grader's (``"judge configuration"``).
        """

    def prepared(self, store: RunStore) -> None:
        """Called with the store once it is checked (e.g. to copy the dataset)."""

    def stored(self, session: RunSession[RunGrader], item: StoredItem) -> None:
        """Called with each item the run directory holds finished."""

    @abstractmethod
    def done(self, job: Job, outcome: ItemOutcome, report: EvaluationReport | None) -> None:
        """Called with each job, its outcome and report as it finishes."""

    async def room(self) -> None:
        """Awaited before each job is taken (a consumer that bounds what is pending)."""

    @abstractmethod
    def finish(self, session: RunSession[RunGrader]) -> T:
        """What the run returns, read from the session before it closes."""


async def drive(grader: RunGrader, plan: RunPlan[T], options: RunOptions) -> T:
    """Grade ``plan``'s jobs with ``grader``; return ``plan.finish(session)``.

    The grader's judges are wrapped to record (and replay) every judgment.

    Raises:
        ConfigError: batches without a run directory, or with an executor.
        UsageError: a run directory that does not fit (see ``RunOptions.force``).
    """
    batch, executor, total = options.batch, options.executor, plan.total
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
        fewer_collections(),
        span("rubricjudge.run") as run_span,
        RunSession(
            grader, options.run_dir, total=total, wrapper=wrapper, executor=executor
        ) as session,
    ):
        if run_span is not None:
            _describe_run(run_span, session, plan.meta, options)
        store = session.store
        finished: set[str] = set()
        if store is not None:
            judges = fingerprint(describe_grader(grader, session.described))
            fingerprints = {**plan.fingerprints(), "judge configuration": judges}
            prepare_store(store, fingerprints, resume=options.resume, force=options.force)
            if batch is None:
                refuse_open_batches(store)
            store.set_meta({**plan.meta, TRAINING_META: json.dumps(training_ids(grader))})
            session.load_stored_judgments()
            plan.prepared(store)
            for stored in store.iter_items(with_reports=plan.reads_stored_reports):
                if stored.status != "done" or (total is not None and stored.index >= total):
                    continue
                finished.add(stored.key)
                plan.stored(session, stored)
            session.builder.resumed = len(finished)
        lanes = options.concurrency * (executor.width if executor is not None else 1)
        if total is not None:
            lanes = min(lanes, total) or 1
        if batch is not None:
            runs = min(options.concurrency, total) if total is not None else options.concurrency
            await run_batches(
                session,
                lambda: plan.batch_jobs(finished),
                batch,
                concurrency=runs or 1,
                progress=options.progress,
            )
        bar = make_progress(options.progress, total, len(finished))
        await session.run(
            plan.jobs(finished), concurrency=lanes, bar=bar, on_done=plan.done, room=plan.room
        )
        if run_span is not None:
            _describe_outcome(run_span, session)
        return plan.finish(session)


def _describe_run(
    s: Any, session: RunSession[RunGrader], meta: Mapping[str, str], options: RunOptions
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


def _describe_outcome(s: Any, session: RunSession[RunGrader]) -> None:
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


class _StreamPlan(RunPlan[dict[str, EndpointStats]]):
    """The plan of :func:`grade_items`: a stream of items, each report written in input order.

    An item finished in an earlier session holds its place in the order by its id;
    its report is read back from the store when its turn comes.
    """

    def __init__(
        self,
        rubric: Rubric,
        items: Callable[[], Iterable[GradeItem]],
        emit: Callable[[EvaluationReport], None],
        *,
        total: int | None,
        input_fingerprint: str,
        window: int,
    ) -> None:
        self.total = total
        self.meta = {"command": "grade", "rubricjudge_version": __version__}
        self._rubric = rubric
        self._items = items
        self._emit = emit
        self._input = input_fingerprint
        self._store: RunStore | None = None
        self._writer: OrderedWriter[EvaluationReport | str] = OrderedWriter(
            self._write, window=window
        )

    def _write(self, result: EvaluationReport | str) -> None:
        if isinstance(result, str):  # the id of an item finished in an earlier session
            assert self._store is not None
            stored = self._store.get_report(result)
            result = (
                EvaluationReport.model_validate_json(stored)
                if stored is not None
                else EvaluationReport(score=None, error="stored report missing", id=result)
            )
        self._emit(result)

    def _job(self, pos: int, it: GradeItem) -> Job:
        return Job(pos, it.id, self._rubric, it.submission, it.query, it.reference)

    def jobs(self, finished: set[str]) -> Iterator[Job]:
        """Every item not finished; a finished one takes its place in the order."""
        for it in self._items():
            pos = self._writer.take()
            if it.id in finished:
                self._writer.put(pos, it.id)  # read back from the store when its turn comes
                continue
            yield self._job(pos, it)

    def batch_jobs(self, finished: set[str]) -> Iterator[Job]:
        """Every item not finished (a pass of its own: nothing is written)."""
        for pos, it in enumerate(self._items()):
            if it.id not in finished:
                yield self._job(pos, it)

    def fingerprints(self) -> dict[str, str]:
        """The input's fingerprint and the rubric's."""
        rubric = self._rubric.model_dump(mode="json", exclude_none=True)
        return {"input": self._input, "rubric": fingerprint(rubric)}

    def prepared(self, store: RunStore) -> None:
        """Keep the store: the reports of items finished earlier are read from it."""
        self._store = store

    def done(self, job: Job, outcome: ItemOutcome, report: EvaluationReport | None) -> None:
        """Write the report when its turn comes."""
        if report is None:  # grading raised: recorded in the item's line
            report = EvaluationReport(score=None, error=outcome.error, id=job.key)
        self._writer.put(job.index, report)

    async def room(self) -> None:
        """Hold the workers back while the reorder buffer is full."""
        await self._writer.room()

    def finish(self, session: RunSession[RunGrader]) -> dict[str, EndpointStats]:
        """The per-server numbers of the judges' fleets."""
        return session.endpoint_stats()


async def grade_items(
    rubric: Rubric,
    items: Callable[[], Iterable[GradeItem]],
    grader: RunGrader,
    emit: Callable[[EvaluationReport], None],
    *,
    total: int | None,
    input_fingerprint: str,
    options: RunOptions,
) -> dict[str, EndpointStats]:
    """Grade every item against ``rubric``; ``emit`` each report in input order.

    ``items()`` is called again for every pass (batches first, then grading), so a
    file is streamed, never held. With a run directory, items finished in an
    earlier session are read back from the store when their turn comes. Returns
    the per-server numbers of the judges' fleets.
    """
    window = 4 * max(1, options.concurrency)
    plan = _StreamPlan(
        rubric, items, emit, total=total, input_fingerprint=input_fingerprint, window=window
    )
    return await drive(grader, plan, options)
