"""The one thread that runs the local model, taking calls that share a prefix together.

llama.cpp is not reentrant, so every call on a loaded model runs on this thread,
one at a time, while the event loops that asked wait on a future. Waiting calls
queue here rather than each holding a thread of the default executor. When
several are waiting, the next one taken is one with the same ``group`` (the
same system prompt and submission) as the call that just ran, so its KV cache is
reused even when a grader interleaves the criteria of several submissions;
otherwise calls run in arrival order. A group is finite (the criteria of one
submission), so no call waits forever.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["PrefixScheduler", "shared_scheduler"]

T = TypeVar("T")


@dataclass
class _Job(Generic[T]):
    fn: Callable[[], T]
    group: Hashable | None
    future: Future[T]


class PrefixScheduler:
    """A single worker thread; among waiting jobs it prefers the last job's group."""

    def __init__(self, name: str = "rubricjudge-local") -> None:
        self._name = name
        self._cv = threading.Condition()
        self._jobs: list[_Job[Any]] = []
        self._last: Hashable | None = None
        self._thread: threading.Thread | None = None
        self.order: list[Hashable | None] = []  # groups as run (the last 1000), for tests

    def submit(self, fn: Callable[[], T], group: Hashable | None = None) -> Future[T]:
        """Queue ``fn`` to run on the worker thread; its result arrives in the future."""
        job: _Job[T] = _Job(fn, group, Future())
        with self._cv:
            self._jobs.append(job)
            if self._thread is None:
                # a daemon: an idle worker must not keep the interpreter alive
                self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
                self._thread.start()
            self._cv.notify()
        return job.future

    async def run(self, fn: Callable[[], T], group: Hashable | None = None) -> T:
        """Run ``fn`` on the worker thread without blocking the running event loop."""
        return await asyncio.wrap_future(self.submit(fn, group))

    def _next(self) -> _Job[Any]:
        if self._last is not None:
            for i, job in enumerate(self._jobs):
                if job.group == self._last:
                    return self._jobs.pop(i)
        return self._jobs.pop(0)

    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._jobs:
                    self._cv.wait()
                job = self._next()
                self._last = job.group
                self.order = [*self.order[-999:], job.group]
            if not job.future.set_running_or_notify_cancel():
                continue  # the caller gave up before its turn
            try:
                job.future.set_result(job.fn())
            except BaseException as e:  # handed to the awaiting caller
                job.future.set_exception(e)


_SHARED: PrefixScheduler | None = None
_SHARED_LOCK = threading.Lock()


def shared_scheduler() -> PrefixScheduler:
    """The process-wide scheduler every local judge uses."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = PrefixScheduler()
        return _SHARED
