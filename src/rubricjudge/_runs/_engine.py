"""What one run holds, and its pool of workers: :class:`RunSession`. Not the driver.

The run driver (``_drive``) opens one session per run; ``grade --pairwise`` and
``--group`` (``_pool``) and reward batches (``_rewards``) open one without a run
directory. A :class:`RunSession` owns the lock and store of its run directory
(if any), the grader with its judges wrapped to record (and replay) every
judgment, the summary and the progress bar. :meth:`RunSession.run` grades jobs
with a fixed pool of workers pulling from one iterator, so at most
``concurrency`` items are in flight and no task exists for an item not yet
started: a 100,000-line input costs a few workers, not 100,000 tasks.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, TypeVar

from .._errors import ConfigError, RunError, UsageError
from .._judges._base import Judge
from .._judges._fleet import EndpointStats, Fleet, FleetMark, endpoint_stats
from .._model._reports import EvaluationReport
from ._bind import bind_judges
from ._fingerprint import describe_judge
from ._job import Job, RunGrader, call_grader
from ._lock import RunLock
from ._progress import Progress, ticking
from ._recording import CURRENT_ITEM, RecordingJudge
from ._remote import Executor, RemoteJudgment, StoredJudgment
from ._result import ItemOutcome
from ._store import JudgmentRow, RunStore, response_from_json
from ._summary import RunSummary, SummaryBuilder

__all__ = ["DATASET_COPY", "RunSession", "prepare_store"]

DATASET_COPY = "dataset.jsonl"
"""The copy of the dataset a run directory keeps, for ``rubricjudge metrics``."""
_FP = "fingerprint:"

OnDone = Callable[["Job", ItemOutcome, EvaluationReport | None], None]
G = TypeVar("G")


class _RemoteFailure(Exception):
    """An item's grading raised on a worker; ``text`` is the worker's ``Type: message``."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass
class _RemoteTally:
    """The judge numbers of items graded by an executor's workers."""

    calls: int = 0
    replayed: int = 0
    cached: int = 0
    errors: int = 0
    rows: list[JudgmentRow] = field(default_factory=list)


class RunSession(Generic[G]):
    """One run of a grader over many items; use as a context manager (it locks the run dir).

    ``G`` is the grader's type: :meth:`grade` needs a :class:`RunGrader`, while the
    pairwise and group modes hand ``bound`` (a copy of the grader whose judges
    record) to their own methods (``compare``, ``rank``). With an ``executor`` the
    items are graded by its workers (on a Ray cluster, say), and this session
    commits what they stream back; ``grader`` is then the same grader built here,
    for the run's fingerprints.
    """

    def __init__(
        self,
        grader: G,
        run_dir: str | Path | None,
        *,
        total: int | None,
        wrapper: type[RecordingJudge] = RecordingJudge,
        executor: Executor | None = None,
    ) -> None:
        self.run_dir = Path(run_dir) if run_dir is not None else None
        self.store: RunStore | None = None
        self.wrappers: list[RecordingJudge] = []
        self.described: list[Any] = []
        self.stored_items: set[str] = set()
        self.builder = SummaryBuilder(total or 0)
        self.batch_answers = 0  # judgments provider batches answered in this session
        self.batch_rejected = 0  # batch results for ids not sent in that batch, or twice
        self._grader = grader
        self._wrapper = wrapper
        self._lock = RunLock(self.run_dir) if self.run_dir is not None else None
        self._started = time.perf_counter()
        self.bound: G = grader
        self.fleets: dict[int, tuple[Fleet, FleetMark]] = {}
        self.executor = executor
        self._remote = _RemoteTally()

    def __enter__(self) -> RunSession[G]:
        if self._lock is not None:
            self._lock.__enter__()
        try:
            if self.run_dir is not None:
                self.store = RunStore(self.run_dir)
            self.bound, _ = bind_judges(self._grader, self._wrap)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.store is not None:
            self.store.close()
        if self._lock is not None:
            self._lock.__exit__(None, None, None)

    def _wrap(self, judge: Judge) -> Judge:
        self.described.append(describe_judge(judge))
        fleet = _fleet_of(judge)
        if fleet is not None and len(fleet) > 1 and id(fleet) not in self.fleets:
            self.fleets[id(fleet)] = (fleet, fleet.mark())  # only this run's calls are reported
        wrapper = self._wrapper(judge, self.store, stored_items=self.stored_items)
        self.wrappers.append(wrapper)
        return wrapper

    def load_stored_judgments(self) -> None:
        """Note which items have stored judgments (only those are looked up on a call)."""
        if self.store is not None:
            self.stored_items.update(self.store.items_with_judgments())

    def counts(self) -> tuple[int, int]:
        """Judgments answered (asked or replayed) and judge errors, so far."""
        r = self._remote
        answered = sum(w.calls + w.replayed for w in self.wrappers) + r.calls + r.replayed
        return answered, sum(w.errors for w in self.wrappers) + r.errors

    def waiting_for(self) -> str:
        """What the first judgment waits for, for the progress bar."""
        if any(w.name.split("/", 1)[0] == "local" for w in self.wrappers):
            return "loading the local model…"
        return "waiting for the judge…"

    async def grade(
        self: RunSession[RunGrader], job: Job
    ) -> tuple[ItemOutcome, EvaluationReport | None]:
        """Grade one job and commit its outcome; an item's failure is data, not an exception.

        Raises:
            UsageError: a misconfiguration, which would fail every item alike.
        """
        token = CURRENT_ITEM.set(job.key)
        store = self.store
        try:
            if self.executor is not None:
                report = await self._grade_remote(job)
            else:
                report = await call_grader(self.bound, job)
        except UsageError:
            raise
        except Exception as e:
            error = e.text if isinstance(e, _RemoteFailure) else f"{type(e).__name__}: {e}"
            if store is not None:
                await store.commit_item(job.key, job.index, "failed", None, None, error)
            self.builder.add_failure(job.key, error)
            return ItemOutcome(job.key, job.index, "failed", None, error), None
        finally:
            CURRENT_ITEM.reset(token)
            for w in self.wrappers:
                w.forget_item(job.key)
        status = "partial" if (report.error_count or report.error) else "done"
        if store is not None:
            await store.commit_item(
                job.key, job.index, status, report.score, report.model_dump_json(), report.error
            )
        self.builder.add_report(job.key, report)
        return ItemOutcome(job.key, job.index, status, report.score, report.error), report

    async def _grade_remote(self, job: Job) -> EvaluationReport:
        """Grade ``job`` on the executor; commit each judgment as it streams in."""
        assert self.executor is not None
        store, tally = self.store, self._remote
        stored: list[StoredJudgment] = []
        if store is not None and job.key in self.stored_items:
            stored = [StoredJudgment(*row) for row in store.judgments_of(job.key)]
        outcome = None
        streamed = 0
        async for event in self.executor.stream(job, stored):
            if not isinstance(event, RemoteJudgment):
                outcome = event
                continue
            streamed += 1
            tally.calls += 1
            response = response_from_json(event.response)
            if store is not None:
                store.put_judgment(
                    job.key,
                    event.request_hash,
                    event.occurrence,
                    event.judge,
                    response,
                    event.tags,
                )
            else:
                r = response
                row = JudgmentRow(event.judge, r.usage, r.cost, r.latency_s, r.queue_s)
                tally.rows.append(row)
        if outcome is None:
            raise RunError(f"the worker grading item {job.key!r} ended without its result")
        tally.calls += outcome.calls - streamed
        tally.replayed += outcome.replayed
        tally.cached += outcome.cached
        tally.errors += outcome.errors
        tally.rows.extend(outcome.rejected)
        if outcome.report is None:
            error = outcome.error or "RunError: the worker gave no report"
            if outcome.usage_error:
                raise ConfigError(error.partition(": ")[2] or error)
            raise _RemoteFailure(error)
        return EvaluationReport.model_validate_json(outcome.report)

    async def run(
        self: RunSession[RunGrader],
        jobs: Iterator[Job],
        *,
        concurrency: int,
        bar: Progress,
        on_done: OnDone,
        room: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """Grade every job with ``concurrency`` workers; ``on_done`` gets each outcome.

        ``room`` (if given) is awaited before each job is taken: a consumer that
        must keep order can hold the workers back while its buffer is full.
        """
        bar.watch(self.counts)
        if bar.done == 0:
            bar.status(self.waiting_for())

        async def worker() -> None:
            while True:
                if room is not None:
                    await room()
                job = next(jobs, None)
                if job is None:
                    return
                outcome, report = await self.grade(job)
                if bar.done == 0:
                    bar.status("")
                on_done(job, outcome, report)
                bar.advance(failed=outcome.status == "failed")

        async with ticking(bar):
            workers = [asyncio.create_task(worker()) for _ in range(max(1, concurrency))]
            try:
                await asyncio.gather(*workers)
            except BaseException:
                for t in workers:
                    t.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
                raise
            finally:
                bar.close()

    def endpoint_stats(self) -> dict[str, EndpointStats]:
        """Per server of the judges' fleets: this run's requests, failures and latency."""
        return endpoint_stats(self.fleets.values()) if self.fleets else {}

    def summary(self) -> RunSummary:
        """The run's summary; judge numbers come from the store when there is one."""
        remote = self._remote
        # all calls without a store; only the rejected ones with a store
        rejected = chain(*(w.rows for w in self.wrappers), remote.rows)
        store = self.store
        rows = chain(store.judgment_rows(), rejected) if store is not None else rejected
        return self.builder.build(
            rows,
            # what batches answered in this session was made now, though read from the store
            replayed=max(0, sum(w.replayed for w in self.wrappers) - self.batch_answers)
            + remote.replayed,
            wall_s=time.perf_counter() - self._started,
            endpoints=self.endpoint_stats(),
            batch_rejected=self.batch_rejected,
            cached=sum(w.cached for w in self.wrappers) + remote.cached,
        )


def prepare_store(store: RunStore, fps: dict[str, str], *, resume: bool, force: bool) -> None:
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


def _fleet_of(judge: Any) -> Fleet | None:
    """The fleet of servers behind ``judge`` (through its wrappers), if it has one."""
    for _ in range(4):
        fleet = getattr(judge, "fleet", None)
        if isinstance(fleet, Fleet):
            return fleet
        judge = getattr(judge, "inner", None)
        if judge is None:
            return None
    return None
