"""The response cache: a local SQLite file of judge answers keyed by a hash.

The key hashes everything that determines an answer (backend, model, base URL,
prompts, schema, sampling and extra parameters) and nothing secret: API keys and
headers never enter the key or the file. The default file is
``~/.cache/rubricjudge/judge-cache.sqlite3``; ``RUBRICJUDGE_CACHE_DIR`` moves it and
``JudgeConfig.cache`` names another file or turns the cache off.

Writes are batched off the event loop: :meth:`ResponseCache.put` hands the row to
a writer thread, which commits the first row at once and then, at most every
``GATHER_S``, whatever has gathered in one transaction, with ``synchronous=NORMAL``
(the run store's setting). A write not yet
committed when the process is killed costs one repeated judge call, never a wrong
answer; lookups see rows still waiting to be written, and pending rows are written
at interpreter exit and by :meth:`ResponseCache.flush`.

Lookups of keys the file does not hold cost no SQLite query: the cache keeps the
hashes of the keys in the file (those of a file of at most ``INDEX_MAX`` rows, read
at the first lookup; a bigger file is asked every time) and asks SQLite only when
a key's hash is among them. Rows another process commits are read into that index
when SQLite's ``data_version`` says the file changed, checked at most every
``RECHECK_S``: until then such a row is a miss, which costs one repeated call.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._env import cache_home
from .._errors import ConfigError
from ._canonical import canonical_json

__all__ = ["CACHE_ENV", "ResponseCache", "cache_key", "default_cache_path", "open_cache"]

CACHE_ENV = "RUBRICJUDGE_CACHE_DIR"
_FILE = "judge-cache.sqlite3"
GATHER_S = 0.05
"""The writer commits at most this often (rows gather in between: one transaction)."""
INDEX_MAX = 500_000
"""Files of at most this many rows keep their keys' hashes in memory (8 MB per 100k)."""
RECHECK_S = 1.0
"""How often, at most, lookups check whether another process wrote to the file."""

# Ordered; each runs once per file and is recorded in ``migrations``.
_MIGRATIONS: list[tuple[str, str]] = [
    (
        "001_responses",
        """
        CREATE TABLE responses (
            key TEXT PRIMARY KEY,
            judge TEXT NOT NULL,
            model TEXT NOT NULL,
            data TEXT NOT NULL,
            raw_text TEXT NOT NULL,
            reasoning TEXT,
            usage TEXT,
            created_at REAL NOT NULL
        )
        """,
    ),
    ("002_probabilities", "ALTER TABLE responses ADD COLUMN probabilities TEXT"),
    ("003_features", "ALTER TABLE responses ADD COLUMN features BLOB"),
]


def default_cache_path() -> Path:
    """``$RUBRICJUDGE_CACHE_DIR/judge-cache.sqlite3``, else under ``~/.cache/rubricjudge``."""
    return cache_home() / _FILE


def cache_key(parts: Mapping[str, Any]) -> str:
    """A stable sha256 of ``parts`` (canonical JSON: sorted keys, no whitespace)."""
    text = canonical_json(parts, compact=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """One SQLite file of cached answers; safe to share between threads and processes."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            self._conn.execute("PRAGMA journal_mode=WAL")
            # a lost entry costs one repeated call: no fsync per write (WAL stays consistent)
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
        except (OSError, sqlite3.Error) as e:
            raise ConfigError(
                f"cannot open the judge cache {str(self.path)!r}: {e}; set {CACHE_ENV} to a "
                "writable directory, pass cache='<file>', or turn the cache off with cache=False"
            ) from None
        self._lock = threading.Lock()  # the connection
        self._queue = threading.Condition()  # the rows below, and the writer's wake-up
        self._pending: dict[str, tuple[Any, ...]] = {}
        self._writing: dict[str, tuple[Any, ...]] = {}
        self._writer: threading.Thread | None = None
        self._closed = False
        # hashes of the keys in the file (None: not read yet, or the file is too big)
        self._index: set[int] | None = None
        self._indexed = False
        self._last_rowid = 0
        self._version = -1
        self._checked = 0.0
        _LIVE.add(self)

    def _migrate(self) -> None:
        conn = self._conn
        conn.execute(
            "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at REAL)"
        )
        done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
        for name, sql in _MIGRATIONS:
            if name in done:
                continue
            conn.execute("BEGIN IMMEDIATE")
            try:
                again = conn.execute("SELECT 1 FROM migrations WHERE name = ?", (name,))
                if again.fetchone() is None:  # another process may have won the race
                    conn.execute(sql)
                    conn.execute("INSERT INTO migrations VALUES (?, ?)", (name, time.time()))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def _may_hold(self, key: str) -> bool:
        """False when the file certainly does not hold ``key`` (no SQLite query then)."""
        now = time.monotonic()
        if not self._indexed or (self._index is not None and now - self._checked > RECHECK_S):
            with self._lock:
                self._read_index(now)
        index = self._index  # once: another thread may drop it meanwhile
        return index is None or hash(key) in index

    def _read_index(self, now: float) -> None:
        """Read the keys added to the file since the last time (caller holds ``_lock``)."""
        conn = self._conn
        self._checked = now
        try:
            (version,) = conn.execute("PRAGMA data_version").fetchone()
            if self._indexed and version == self._version:
                return  # no other connection committed since
            if not self._indexed:
                self._indexed = True
                (top,) = conn.execute("SELECT max(rowid) FROM responses").fetchone()
                if (top or 0) > INDEX_MAX:
                    return  # too big to hold in memory: every lookup asks SQLite
                self._index = set()
            assert self._index is not None
            rows = conn.execute(
                "SELECT rowid, key FROM responses WHERE rowid > ?", (self._last_rowid,)
            ).fetchall()
        except sqlite3.Error:
            self._index = None  # cannot tell: ask SQLite every time
            return
        self._version = version
        for rowid, key in rows:
            self._index.add(hash(key))
            self._last_rowid = max(self._last_rowid, rowid)
        if len(self._index) > INDEX_MAX:
            self._index = None

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored record for ``key`` (``data``, ``raw_text``, ``usage`` ...), or None."""
        with self._queue:
            queued = self._pending.get(key) or self._writing.get(key)
        if queued is not None:
            row = (*queued[1:7], queued[8], queued[9])
        elif not self._may_hold(key):
            return None
        else:
            with self._lock:
                row = self._conn.execute(
                    "SELECT judge, model, data, raw_text, reasoning, usage, probabilities,"
                    " features FROM responses WHERE key = ?",
                    (key,),
                ).fetchone()
        if row is None:
            return None
        judge, model, data, raw_text, reasoning, usage, probabilities, features = row
        return {
            "features": bytes(features) if features is not None else None,
            "probabilities": json.loads(probabilities) if probabilities else None,
            "judge": judge,
            "model": model,
            "data": json.loads(data),
            "raw_text": raw_text,
            "reasoning": reasoning,
            "usage": json.loads(usage) if usage else None,
        }

    def put(
        self,
        key: str,
        *,
        judge: str,
        model: str,
        data: Mapping[str, Any],
        raw_text: str,
        reasoning: str | None,
        usage: Mapping[str, Any] | None,
        probabilities: Mapping[str, float] | None = None,
        features: bytes | None = None,
    ) -> None:
        """Store an answer under ``key`` (replacing any older one); written in the background."""
        row = (
            key,
            judge,
            model,
            json.dumps(data, ensure_ascii=False),
            raw_text,
            reasoning,
            json.dumps(usage) if usage is not None else None,
            time.time(),
            json.dumps(dict(probabilities)) if probabilities is not None else None,
            features,
        )
        with self._queue:
            first = not self._pending
            self._pending[key] = row
            if self._writer is None:
                self._writer = threading.Thread(
                    target=self._write_loop, name="rubricjudge-cache", daemon=True
                )
                self._writer.start()
            if first:  # the writer is waiting for a first row; it gathers the rest itself
                self._queue.notify()

    def _write_loop(self) -> None:
        while True:
            with self._queue:
                while not self._pending and not self._closed:
                    self._queue.wait()
                if not self._pending:
                    return
            self._write_batch()
            # the first row is written at once; those after it gather for a while and
            # are committed together (one transaction, one wake-up of this thread)
            deadline = time.monotonic() + GATHER_S
            with self._queue:
                while not self._closed and (left := deadline - time.monotonic()) > 0:
                    self._queue.wait(left)

    def _write_batch(self) -> None:
        with self._queue:
            self._writing, self._pending = self._pending, {}
            rows = list(self._writing.values())
        try:
            if rows:
                with self._lock:
                    index = self._index
                    if index is not None:
                        index.update(hash(row[0]) for row in rows)
                    conn = self._conn
                    conn.execute("BEGIN IMMEDIATE")
                    try:
                        conn.executemany(
                            "INSERT OR REPLACE INTO responses (key, judge, model, data, raw_text,"
                            " reasoning, usage, created_at, probabilities, features)"
                            " VALUES (?,?,?,?,?,?,?,?,?,?)",
                            rows,
                        )
                        conn.execute("COMMIT")
                    except BaseException:
                        conn.execute("ROLLBACK")
                        raise
        except sqlite3.Error:
            pass  # a cache that cannot be written costs repeated calls, not the run
        finally:
            with self._queue:
                self._writing = {}
                self._queue.notify_all()

    def flush(self) -> None:
        """Write every pending row now (from any thread)."""
        while True:
            with self._queue:
                if not self._pending and not self._writing:
                    return
                if self._writing:  # the writer thread is on it
                    self._queue.wait(0.05)
                    continue
            self._write_batch()

    def __len__(self) -> int:
        self.flush()
        with self._lock:
            (n,) = self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()
        return int(n)

    def close(self) -> None:
        """Write what is pending and close the file."""
        if self._closed:
            return
        self.flush()
        with self._queue:
            self._closed = True
            self._queue.notify_all()
        with self._lock:
            self._conn.close()
        _LIVE.discard(self)


_LIVE: weakref.WeakSet[ResponseCache] = weakref.WeakSet()


@atexit.register
def _flush_at_exit() -> None:
    for cache in list(_LIVE):
        try:
            cache.flush()
        except Exception:  # noqa: S112 - best effort: the process is ending
            continue


_OPEN: dict[Path, ResponseCache] = {}
_OPEN_LOCK = threading.Lock()


def open_cache(setting: bool | str | os.PathLike[str]) -> ResponseCache | None:
    """The cache for a ``JudgeConfig.cache`` setting: True (default file), a path, or False."""
    if setting is False:
        return None
    path = default_cache_path() if setting is True else Path(setting).expanduser()
    path = path.resolve()
    with _OPEN_LOCK:
        cache = _OPEN.get(path)
        if cache is None or not cache.path.exists():
            cache = _OPEN[path] = ResponseCache(path)
    return cache
