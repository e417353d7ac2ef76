"""Database URLs for the registry tests: an SQLite file, and PostgreSQL when configured.

PostgreSQL runs when ``RUBRICJUDGE_TEST_POSTGRES_URL`` is set (``.ci/run`` starts a
server and sets it); each test gets its own schema, dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

PG_ENV = "RUBRICJUDGE_TEST_POSTGRES_URL"
BACKENDS = [
    "sqlite",
    pytest.param(
        "postgres",
        marks=pytest.mark.skipif(not os.environ.get(PG_ENV), reason=f"{PG_ENV} is not set"),
    ),
]


def _with_schema(url: str, schema: str) -> str:
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options={quote(f'-csearch_path={schema}')}"


def database_url(kind: str, tmp_path: Path) -> Iterator[str]:
    """Yield a fresh, empty database URL of ``kind``; clean it up afterwards."""
    if kind == "sqlite":
        yield str(tmp_path / "registry.sqlite3")
        return
    import psycopg

    base = os.environ[PG_ENV]
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield _with_schema(base, schema)
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
