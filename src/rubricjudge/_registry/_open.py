"""Opening a database by URL: backends registered by scheme, the default SQLite file."""

from __future__ import annotations

import os
from collections.abc import Callable

from .._env import data_home, getenv
from .._errors import ConfigError
from ._db import Database
from ._postgres import open_postgres
from ._sqlite import open_sqlite

__all__ = ["default_url", "open_database", "register_backend"]

BackendFactory = Callable[[str], Database]
_BACKENDS: dict[str, BackendFactory] = {}


def register_backend(scheme: str, factory: BackendFactory) -> None:
    """Register ``factory(url)`` for database URLs starting ``scheme://``."""
    _BACKENDS[scheme] = factory


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


register_backend("sqlite", open_sqlite)
register_backend("postgresql", open_postgres)
register_backend("postgres", open_postgres)
