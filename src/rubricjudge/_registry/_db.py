"""The storage contract: a database reached by URL, transactions, retries, migrations.

Backends (``_sqlite``, ``_postgres``; registered by URL scheme in ``_open``) implement
:class:`Database`: open a transaction and say which errors are worth retrying.
SQL is written once with ``?`` placeholders; a backend translates what differs
(placeholders, row locks, id columns). The default database is an SQLite file at
``$RUBRICJUDGE_REGISTRY``, else ``~/.local/share/rubricjudge/registry.sqlite3``.
"""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TypeVar

from .._errors import StorageError
from ._migrations import apply_migrations
from ._tx import Tx

__all__ = ["DEFAULT_PATH", "ENV_VAR", "Database", "StorageError", "Tx"]

ENV_VAR = "RUBRICJUDGE_REGISTRY"
DEFAULT_PATH = Path("~/.local/share/rubricjudge/registry.sqlite3")
T = TypeVar("T")


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
        return apply_migrations(self)

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release resources (connections are per transaction; nothing to do by default)."""
