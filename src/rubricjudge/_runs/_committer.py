"""Group commit for the run store: rows written on a thread of their own, many per transaction.

The event loop hands each row over and awaits its future; a writer thread with its own
connection to the same SQLite file takes every row queued so far, commits them in one
transaction, and resolves their futures (one wake-up of the loop per transaction). A row
is acknowledged only once its transaction is committed, so a process killed at any
moment loses nothing that was acknowledged; what it saves is a transaction per row
(about 40 us of CPU each, measured by ``benchmarks/client_candidates.py --store``) and
the loop's time inside SQLite.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["Committer"]

_Waiters = dict[asyncio.AbstractEventLoop, list["asyncio.Future[None]"]]


def _settle(futures: list[asyncio.Future[None]], error: BaseException | None) -> None:
    for fut in futures:
        if fut.done():  # its caller was cancelled; the row is committed all the same
            continue
        if error is None:
            fut.set_result(None)
        else:
            fut.set_exception(error)


class Committer:
    """Commits the rows it is given, in order, on one writer thread (started when first used)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._cond = threading.Condition()
        self._queue: list[tuple[str, Sequence[Any]]] = []
        self._waiters: _Waiters = {}  # per event loop, the futures of the rows queued
        self._busy = False
        self._closed = False
        self._thread: threading.Thread | None = None
        self._kicked = False  # a wake-up of the writer is scheduled on the loop

    def submit(self, sql: str, params: Sequence[Any]) -> asyncio.Future[None]:
        """Queue one statement; the future is done once it is committed (or failed).

        Rows queued while the loop runs what is ready share one transaction.
        """
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        with self._cond:
            if self._closed:
                raise RuntimeError("the run store is closed")
            self._queue.append((sql, params))
            self._waiters.setdefault(loop, []).append(fut)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="rubricjudge-run-store", daemon=True
                )
                self._thread.start()
            kick, self._kicked = not self._kicked, True
        if kick:  # once the loop has run what is ready: every row queued by then, one commit
            loop.call_soon(self._kick)
        return fut

    def _kick(self) -> None:
        with self._cond:
            self._kicked = False
            self._cond.notify_all()

    def drain(self) -> None:
        """Wait until every row queued so far is committed (readers call this first)."""
        with self._cond:
            self._cond.notify_all()  # a wake-up still scheduled on this loop would never run
            while self._queue or self._busy:
                self._cond.wait()

    def close(self) -> None:
        """Commit what is queued, then stop the writer thread."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        db: sqlite3.Connection | None = None
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    break
                batch, self._queue = self._queue, []
                waiters, self._waiters = self._waiters, {}
                self._busy = True
            error: BaseException | None = None
            try:
                if db is None:
                    db = sqlite3.connect(self._path, isolation_level=None, timeout=10.0)
                    db.execute("PRAGMA synchronous=NORMAL")  # as the store's own connection
                db.execute("BEGIN IMMEDIATE")
                try:
                    start = 0
                    while start < len(batch):  # runs of one statement, in order
                        sql = batch[start][0]
                        end = start + 1
                        while end < len(batch) and batch[end][0] == sql:
                            end += 1
                        db.executemany(sql, [params for _, params in batch[start:end]])
                        start = end
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as e:
                error = e  # as a write on the loop would have raised it
            for loop, futures in waiters.items():
                try:
                    loop.call_soon_threadsafe(_settle, futures, error)
                except RuntimeError:  # that loop has closed: nobody waits any more
                    pass
            with self._cond:
                self._busy = False
                self._cond.notify_all()
        if db is not None:
            db.close()
