"""Ordered schema migrations and the ``_migrations`` table of those applied.

Each migration runs in its own write transaction together with the row that
records it, so a database is never left half-migrated. Append new migrations to
:data:`MIGRATIONS`; never edit or reorder applied ones. Statements are portable
SQL (TEXT, INTEGER, DOUBLE PRECISION) so both backends run the same list.
"""

from __future__ import annotations

from datetime import UTC, datetime

from ._tx import Runner, Tx

__all__ = ["MIGRATIONS", "apply_migrations"]

# PostgreSQL: serialise migrators on an advisory lock (this number is arbitrary but fixed)
_PG_LOCK = "SELECT pg_advisory_xact_lock(4627190355)"

MIGRATIONS: list[tuple[str, list[str]]] = [
    (
        "m001_rubrics",
        [
            """CREATE TABLE rubrics (
                id TEXT PRIMARY KEY,
                latest_version TEXT,
                target_type TEXT,
                name TEXT,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                deleted_at TEXT
            )""",
            """CREATE TABLE rubric_versions (
                rubric_id TEXT NOT NULL REFERENCES rubrics(id),
                version TEXT NOT NULL,
                major INTEGER NOT NULL,
                minor INTEGER NOT NULL,
                patch INTEGER NOT NULL,
                target_type TEXT,
                name TEXT,
                content TEXT NOT NULL,
                content_hash TEXT NOT NULL,
                metadata TEXT NOT NULL,
                action TEXT NOT NULL,
                created_at TEXT NOT NULL,
                PRIMARY KEY (rubric_id, version)
            )""",
            "CREATE INDEX rubrics_target_type ON rubrics(target_type)",
            "CREATE INDEX rubric_versions_hash ON rubric_versions(content_hash)",
        ],
    ),
    (
        "m002_review",
        [
            """CREATE TABLE artifacts (
                id TEXT PRIMARY KEY,
                type TEXT NOT NULL,
                name TEXT NOT NULL,
                content TEXT NOT NULL,
                rubric_ids TEXT NOT NULL,
                status TEXT NOT NULL,
                metadata TEXT NOT NULL,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            )""",
            "CREATE INDEX artifacts_type ON artifacts(type)",
            """CREATE TABLE artifact_evaluations (
                id TEXT PRIMARY KEY,
                artifact_id TEXT NOT NULL REFERENCES artifacts(id),
                review_round INTEGER NOT NULL,
                rubric_id TEXT NOT NULL,
                rubric_version TEXT NOT NULL,
                rubric_hash TEXT NOT NULL,
                score DOUBLE PRECISION,
                passed INTEGER,
                report TEXT NOT NULL,
                evaluated_at TEXT NOT NULL
            )""",
            "CREATE INDEX artifact_evaluations_artifact ON artifact_evaluations(artifact_id)",
            """CREATE TABLE artifact_events (
                id TEXT PRIMARY KEY,
                artifact_id TEXT NOT NULL REFERENCES artifacts(id),
                from_status TEXT,
                to_status TEXT NOT NULL,
                at TEXT NOT NULL,
                note TEXT NOT NULL
            )""",
        ],
    ),
]


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _lock(db: Runner, tx: Tx) -> None:
    if db.dialect == "postgresql":
        tx.execute(_PG_LOCK)


def apply_migrations(db: Runner) -> list[str]:
    """Apply every migration not yet in ``_migrations``, in order; their names."""

    def ensure_table(tx: Tx) -> None:
        _lock(db, tx)
        tx.execute(
            "CREATE TABLE IF NOT EXISTS _migrations "
            "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
        )

    def applied(tx: Tx) -> set[str]:
        return {r[0] for r in tx.execute("SELECT name FROM _migrations")}

    # the common case, a migrated database, costs two reads and no write lock
    if _has_table(db) and {name for name, _ in MIGRATIONS} <= db.run(applied, write=False):
        return []
    db.run(ensure_table)
    done: list[str] = []
    for name, statements in MIGRATIONS:

        def step(tx: Tx, name: str = name, statements: list[str] = statements) -> bool:
            _lock(db, tx)
            if tx.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)):
                return False  # another process applied it first
            for sql in statements:
                tx.execute(sql)
            tx.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", (name, _now()))
            return True

        if db.run(step):
            done.append(name)
    return done


def _has_table(db: Runner) -> bool:
    def probe(tx: Tx) -> bool:
        if db.dialect == "postgresql":
            rows = tx.execute("SELECT to_regclass('_migrations') IS NOT NULL")
            return bool(rows[0][0])
        rows = tx.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='_migrations'")
        return bool(rows)

    return db.run(probe, write=False)
