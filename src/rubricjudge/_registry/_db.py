"""The storage contract: a database reached by URL, transactions, retries, migrations.

Backends register by URL scheme (``sqlite``, ``postgresql``) and implement
:class:`Database`: open a transaction and say which errors are worth retrying.
SQL is written once with ``?`` placeholders; a backend translates what differs
(placeholders, row locks, id columns). The default database is an SQLite file at
``$RUBRICJUDGE_REGISTRY``, else ``~/.local/share/rubricjudge/registry.sqlite3``.
"""

from __future__ import annotations

import os
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypeVar

from .._env import data_home, getenv
from .._errors import ConfigError, RunError

__all__ = [
    "DEFAULT_PATH",
    "ENV_VAR",
    "Database",
    "StorageError",
    "Tx",
    "default_url",
    "open_database",
    "register_backend",
]

ENV_VAR = "RUBRICJUDGE_REGISTRY"
DEFAULT_PATH = Path("~/.local/share/rubricjudge/registry.sqlite3")
T = TypeVar("T")


class StorageError(RunError):
    """The database failed (and retrying did not help)."""


class Tx(ABC):
    """One open transaction."""

    #: appended to a SELECT that must lock the rows it reads ("" where the
    #: backend locks the whole database for a write transaction instead)
    for_update: str = ""

    @abstractmethod
    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement (``?`` placeholders); the rows it returns, if any."""

    @property
    @abstractmethod
    def rowcount(self) -> int:
        """Rows changed by the last statement."""


class Database(ABC):
    """A database behind a URL: transactions and migrations.

    Every public operation is one short transaction on a fresh connection, so a
    Database is safe to share between threads; processes share it through the
    server (PostgreSQL) or the file's locks (SQLite).
    """

    dialect: str
    url: str
    #: the driver's exception classes, reported as StorageError
    native_errors: tuple[type[Exception], ...] = ()

    @property
    def safe_url(self) -> str:
        """The URL without its password, for messages."""
        head, at, tail = self.url.rpartition("@")
        if not at:
            return self.url
        scheme, sep, cred = head.partition("://")
        user = cred.split(":", 1)[0]
        return f"{scheme}{sep}{user}:***@{tail}" if sep else f"***@{tail}"

    @abstractmethod
    def transaction(self, *, write: bool) -> AbstractContextManager[Tx]:
        """Return a transaction: committed when the block ends, rolled back on an exception."""

    @abstractmethod
    def retryable(self, error: BaseException) -> bool:
        """Return True for errors a retry of the whole transaction may cure (locks, conflicts)."""

    def run(self, fn: Callable[[Tx], T], *, write: bool = True, attempts: int = 8) -> T:
        """Run ``fn`` in a transaction, retrying the whole of it on retryable errors.

        ``fn`` must be safe to re-run: it reads what it needs inside the transaction.
        """
        for attempt in range(1, attempts + 1):
            try:
                with self.transaction(write=write) as tx:
                    return fn(tx)
            except Exception as e:
                if self.retryable(e) and attempt < attempts:
                    time.sleep(random.uniform(0.005, 0.02) * 2 ** min(attempt, 6))
                    continue
                if isinstance(e, self.native_errors):
                    raise StorageError(f"{self.dialect} ({self.safe_url}): {e}") from e
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def migrate(self) -> list[str]:
        """Apply the migrations not applied yet; the names applied now."""
        from ._migrations import apply_migrations

        return apply_migrations(self)

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release resources (connections are per transaction; nothing to do by default)."""


BackendFactory = Callable[[str], Database]
_BACKENDS: dict[str, BackendFactory] = {}


def register_backend(scheme: str, factory: BackendFactory) -> None:
    """Register ``factory(url)`` for database URLs starting ``scheme://``."""
    _BACKENDS[scheme] = factory


def _builtins() -> None:
    if "sqlite" in _BACKENDS:
        return
    from ._postgres import open_postgres
    from ._sqlite import open_sqlite

    register_backend("sqlite", open_sqlite)
    register_backend("postgresql", open_postgres)
    register_backend("postgres", open_postgres)


def default_url() -> str:
    """``$RUBRICJUDGE_REGISTRY`` (a path or a URL), else the default SQLite file."""
    env = (getenv("REGISTRY") or "").strip()
    return env or str(data_home() / "registry.sqlite3")


def open_database(url: str | os.PathLike[str] | None = None, *, migrate: bool = True) -> Database:
    """Open the database at ``url`` (default: :func:`default_url`) and migrate it.

    A plain path is an SQLite file. ``sqlite:///relative.db`` and
    ``sqlite:////absolute/path.db`` follow SQLAlchemy's convention;
    ``postgresql://user:pass@host:port/db`` needs psycopg (``rubricjudge[postgres]``).

    Raises:
        ConfigError: the URL's scheme has no backend (the message lists them).
    """
    _builtins()
    text = str(url) if url is not None else default_url()
    scheme, sep, _ = text.partition("://")
    if not sep:
        db: Database = _BACKENDS["sqlite"](text)
    else:
        factory = _BACKENDS.get(scheme.lower())
        if factory is None:
            valid = ", ".join(f"{s}://" for s in sorted(_BACKENDS))
            raise ConfigError(f"database URL {text!r}: unknown scheme {scheme!r}; use {valid}")
        db = factory(text)
    if migrate:
        db.migrate()
    return db
