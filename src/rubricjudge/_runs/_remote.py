"""Grading in other processes while the driver keeps the run store.

An executor (Ray's, or :class:`InProcessExecutor` here) grades a :class:`Job` on
an :class:`ItemWorker`, which holds a grader built once from a
:class:`GraderSpec`. The worker streams back every judgment its judges answer,
as it arrives, then the item's outcome; the driver's :class:`RunSession` commits
each judgment to the run store and the item after them, exactly as when it
grades in its own process. The driver also sends the judgments already stored
for the item, so a resumed run asks no stored question again, wherever the item
lands.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .._errors import UsageError
from .._graders._base import Grader
from .._graders._spec import GraderSpec
from .._judges._base import Judge, JudgeResponse
from ._bind import bind_judges
from ._job import Job, call_grader
from ._recording import CURRENT_ITEM, RecordingJudge
from ._store import JudgmentRow, response_to_json

__all__ = [
    "Executor",
    "InProcessExecutor",
    "ItemWorker",
    "RemoteEvent",
    "RemoteJudgment",
    "RemoteOutcome",
    "StoredJudgment",
]


@dataclass(frozen=True, slots=True)
class StoredJudgment:
    """A judgment the run store already holds for the item (sent to the worker)."""

    request_hash: str
    occurrence: int
    response: str


@dataclass(frozen=True, slots=True)
class RemoteJudgment:
    """One answer a worker's judge gave, for the driver to commit."""

    request_hash: str
    occurrence: int
    judge: str
    response: str
    tags: str | None


@dataclass(frozen=True, slots=True)
class RemoteOutcome:
    """How grading one item ended on the worker.

    ``report`` is the report's JSON, or None when grading raised: ``error`` then says
    what (``"Type: message"``) and ``usage_error`` whether it was a misconfiguration.
    """

    report: str | None
    error: str | None
    usage_error: bool
    calls: int
    replayed: int
    errors: int
    rejected: tuple[JudgmentRow, ...] = ()
    cached: int = 0


RemoteEvent = RemoteJudgment | RemoteOutcome


class Executor(Protocol):
    """Grades jobs somewhere else; the run session commits what it streams back."""

    @property
    def width(self) -> int:
        """How many workers grade at once (the driver keeps ``concurrency`` items per worker)."""

    def stream(self, job: Job, stored: Sequence[StoredJudgment]) -> AsyncIterator[RemoteEvent]:
        """Grade ``job``: yield each judgment as it arrives, then the :class:`RemoteOutcome`."""


class _ItemStore:
    """The worker's view of the run store for one item: the driver's copy, and a sink."""

    def __init__(self, stored: Sequence[StoredJudgment], sink: asyncio.Queue[Any]) -> None:
        self._stored = {(s.request_hash, s.occurrence): s.response for s in stored}
        self._sink = sink

    def get_judgment(self, item_key: str, request_hash: str, occurrence: int) -> str | None:
        return self._stored.get((request_hash, occurrence))

    def put_judgment(
        self,
        item_key: str,
        request_hash: str,
        occurrence: int,
        judge: str,
        r: JudgeResponse,
        tags: str | None = None,
    ) -> None:
        event = RemoteJudgment(request_hash, occurrence, judge, response_to_json(r), tags)
        self._sink.put_nowait(event)


_DONE = object()


class ItemWorker:
    """Holds one grader (built once from its spec) and grades jobs with it."""

    def __init__(self, spec: GraderSpec) -> None:
        self.grader: Grader = spec.build()
        # the judges are built here, once; a local model then loads on the first call
        # and stays loaded for every later item of this worker
        self.grader.members()

    async def grade(self, job: Job, stored: Sequence[StoredJudgment]) -> AsyncIterator[RemoteEvent]:
        """Grade ``job``; yield each new judgment as it arrives, then the outcome."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        box = _ItemStore(stored, queue)
        wrappers: list[RecordingJudge] = []

        def wrap(judge: Judge) -> Judge:
            w = RecordingJudge(judge, box, stored_items={job.key} if stored else set())
            wrappers.append(w)
            return w

        bound, _ = bind_judges(self.grader, wrap)

        async def run() -> RemoteOutcome:
            token = CURRENT_ITEM.set(job.key)
            report = error = None
            usage = False
            try:
                report = (await call_grader(bound, job)).model_dump_json()
            except Exception as e:
                error, usage = f"{type(e).__name__}: {e}", isinstance(e, UsageError)
            finally:
                CURRENT_ITEM.reset(token)
                queue.put_nowait(_DONE)
            return RemoteOutcome(
                report,
                error,
                usage,
                calls=sum(w.calls for w in wrappers),
                replayed=sum(w.replayed for w in wrappers),
                errors=sum(w.errors for w in wrappers),
                rejected=tuple(r for w in wrappers for r in w.rows),
                cached=sum(w.cached for w in wrappers),
            )

        task = asyncio.create_task(run())
        try:
            while (event := await queue.get()) is not _DONE:
                yield event
            yield await task
        finally:
            if not task.done():  # the driver stopped listening: stop asking the judge
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)


class InProcessExecutor:
    """An executor whose one worker lives in this process (what a Ray actor does, minus Ray).

    For tests and for checking that a spec builds and grades before shipping it out.
    """

    def __init__(self, spec: GraderSpec) -> None:
        self._worker = ItemWorker(spec)

    @property
    def width(self) -> int:
        """One worker."""
        return 1

    def stream(self, job: Job, stored: Sequence[StoredJudgment]) -> AsyncIterator[RemoteEvent]:
        """Grade ``job`` on the in-process worker."""
        return self._worker.grade(job, stored)
