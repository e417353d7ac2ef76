"""The response cache: a local SQLite file of judge answers keyed by a hash.

The key hashes everything that determines an answer (backend, model, base URL,
prompts, schema, sampling and extra parameters) and nothing secret: API keys and
headers never enter the key or the file. The default file is
``~/.cache/rubricjudge/judge-cache.sqlite3``; ``RUBRICJUDGE_CACHE_DIR`` moves it and
``JudgeConfig.cache`` names another file or turns the cache off.

Writes are batched off the event loop: :meth:`ResponseCache.put` hands the row to
a writer thread, which commits whatever has gathered in one transaction with
``synchronous=NORMAL`` (the run store's setting). A write not yet committed when
the process is killed costs one repeated judge call, never a wrong answer;
lookups see rows still waiting to be written, and pending rows are written at
interpreter exit and by :meth:`ResponseCache.flush`.
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

__all__ = ["CACHE_ENV", "ResponseCache", "cache_key", "default_cache_path", "open_cache"]

CACHE_ENV = "RUBRICJUDGE_CACHE_DIR"
_FILE = "judge-cache.sqlite3"

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
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
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

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored record for ``key`` (``data``, ``raw_text``, ``usage`` ...), or None."""
        with self._queue:
            queued = self._pending.get(key) or self._writing.get(key)
        if queued is not None:
            row = (*queued[1:7], queued[8], queued[9])
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
            self._pending[key] = row
            if self._writer is None:
                self._writer = threading.Thread(
                    target=self._write_loop, name="rubricjudge-cache", daemon=True
                )
                self._writer.start()
            self._queue.notify()

    def _write_loop(self) -> None:
        while True:
            with self._queue:
                while not self._pending and not self._closed:
                    self._queue.wait()
                if not self._pending:
                    return
            self._write_batch()

    def _write_batch(self) -> None:
        with self._queue:
            self._writing, self._pending = self._pending, {}
            rows = list(self._writing.values())
        try:
            if rows:
                with self._lock:
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
