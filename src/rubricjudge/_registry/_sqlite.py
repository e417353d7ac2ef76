"""The SQLite backend: a local file, WAL journal, one writer at a time.

Write transactions start with ``BEGIN IMMEDIATE``, which takes the database's
write lock up front: two writers (threads or processes) never interleave, and a
writer that has to wait does so for up to ``timeout`` seconds before retrying.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from ._db import Database, Tx

__all__ = ["SQLiteDatabase", "open_sqlite"]


class _SQLiteTx(Tx):
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._rowcount = 0

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cur = self._conn.execute(sql, tuple(params))
        self._rowcount = cur.rowcount
        return [tuple(r) for r in cur.fetchall()]

    @property
    def rowcount(self) -> int:
        return self._rowcount


class SQLiteDatabase(Database):
    """A database in one SQLite file."""

    dialect = "sqlite"
    native_errors = (sqlite3.Error,)

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = Path(path).expanduser()
        self.url = f"sqlite:///{self.path}"
        self.timeout = timeout
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"cannot create the directory of database {self.path}: {e}") from None
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    @contextmanager
    def _tx(self, write: bool) -> Iterator[Tx]:
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield _SQLiteTx(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            conn.close()

    def transaction(self, *, write: bool) -> AbstractContextManager[Tx]:
        """Return a transaction; ``write`` takes the write lock at the start."""
        return self._tx(write)

    def retryable(self, error: BaseException) -> bool:
        """Lock timeouts and unique-key races are retried."""
        if isinstance(error, sqlite3.IntegrityError):
            return "UNIQUE" in str(error)
        return isinstance(error, sqlite3.OperationalError) and (
            "locked" in str(error) or "busy" in str(error)
        )


def open_sqlite(url: str) -> Database:
    """Return a SQLiteDatabase from a path or an ``sqlite:///`` URL (SQLAlchemy's convention)."""
    if url.startswith("sqlite://"):
        rest = url[len("sqlite://") :]
        if not rest.startswith("/") or rest in ("/", "/:memory:"):
            raise ConfigError(
                f"database URL {url!r}: give a file, as sqlite:///relative.db or "
                "sqlite:////absolute/path.db (in-memory databases are not supported)"
            )
        path = rest[1:]
    else:
        path = url
    return SQLiteDatabase(path)
