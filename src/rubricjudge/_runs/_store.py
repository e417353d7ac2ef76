"""The run store: one SQLite file in the run directory, committed as results arrive.

Tables: ``meta`` (fingerprints, dataset size, where the dataset came from),
``judgments`` (every judge answer, keyed by item, request hash and occurrence),
``items`` (each graded item's report), and ``batches`` / ``batch_requests`` (the
provider batches of ``--batch-api`` and the requests they carry). WAL mode and a
transaction per write (or, through :meth:`RunStore.commit_judgment` and
:meth:`RunStore.commit_item`, per group of writes, committed on a thread before any of
them is acknowledged) mean a process killed at any moment (SIGKILL included) loses at
most the judgments in flight; what was committed is replayed on resume.

The schema evolves through ``MIGRATIONS``, an ordered list; ``_migrations``
records the ones applied.
"""

from __future__ import annotations

import base64
import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._errors import RunError
from .._judges._base import JudgeResponse
from .._model._reports import TokenUsage
from ._committer import Committer

__all__ = ["DB_NAME", "MIGRATIONS", "JudgmentRow", "RunStore", "StoredItem"]

DB_NAME = "run.sqlite"


def _m1(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute(
        """CREATE TABLE judgments (
            item_key TEXT NOT NULL, request_hash TEXT NOT NULL, occurrence INTEGER NOT NULL,
            judge TEXT NOT NULL, response TEXT NOT NULL, prompt_tokens INTEGER,
            completion_tokens INTEGER, total_tokens INTEGER, cost REAL, latency_s REAL,
            created REAL NOT NULL,
            PRIMARY KEY (item_key, request_hash, occurrence))"""
    )
    db.execute(
        """CREATE TABLE items (
            item_key TEXT PRIMARY KEY, idx INTEGER NOT NULL, status TEXT NOT NULL,
            score REAL, report TEXT, error TEXT, updated REAL NOT NULL)"""
    )
    db.execute("CREATE INDEX items_idx ON items (idx)")


def _m2(db: sqlite3.Connection) -> None:
    # the request's tags (criterion, item ...): for people and tools reading the store
    db.execute("ALTER TABLE judgments ADD COLUMN tags TEXT")


def _m3(db: sqlite3.Connection) -> None:
    # time spent waiting for limits or the local model, apart from the call's own latency
    db.execute("ALTER TABLE judgments ADD COLUMN queue_s REAL")


def _m4(db: sqlite3.Connection) -> None:
    # provider batch APIs: every request a batch carries, and every batch, committed
    # before the provider is asked to create it (see _runs/_batch_ledger.py)
    db.execute(
        """CREATE TABLE batches (
            id INTEGER PRIMARY KEY AUTOINCREMENT, provider TEXT NOT NULL, judge TEXT NOT NULL,
            input_file_id TEXT, batch_id TEXT, status TEXT NOT NULL, requests INTEGER NOT NULL,
            done INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0,
            output_file_id TEXT, error_file_id TEXT, collected INTEGER NOT NULL DEFAULT 0,
            errors TEXT, created REAL NOT NULL, updated REAL NOT NULL)"""
    )
    db.execute(
        """CREATE TABLE batch_requests (
            custom_id TEXT PRIMARY KEY, item_key TEXT NOT NULL, request_hash TEXT NOT NULL,
            occurrence INTEGER NOT NULL, judge TEXT NOT NULL, body TEXT, decision TEXT,
            tags TEXT, batch INTEGER, state TEXT NOT NULL, error TEXT, category TEXT,
            submissions INTEGER NOT NULL DEFAULT 0, updated REAL NOT NULL)"""
    )
    db.execute(
        "CREATE UNIQUE INDEX batch_requests_key "
        "ON batch_requests (item_key, request_hash, occurrence)"
    )
    db.execute("CREATE INDEX batch_requests_batch ON batch_requests (batch, state)")
    db.execute("CREATE INDEX batch_requests_state ON batch_requests (state, judge)")


def _m5(db: sqlite3.Connection) -> None:
    # when a batch's create call was first made: a provider whose batches carry no
    # input file (Anthropic) finds a batch whose create reply was lost by this time
    db.execute("ALTER TABLE batches ADD COLUMN intent REAL")


MIGRATIONS: list[tuple[str, Callable[[sqlite3.Connection], None]]] = [
    ("0001_initial", _m1),
    ("0002_judgment_tags", _m2),
    ("0003_judgment_queue", _m3),
    ("0004_batch_api", _m4),
    ("0005_batch_intent", _m5),
]


@dataclass(frozen=True)
class StoredItem:
    """One item's stored outcome."""

    key: str
    index: int
    status: str
    score: float | None
    report_json: str | None
    error: str | None


@dataclass(frozen=True)
class JudgmentRow:
    """The numbers of one stored judgment, for summaries."""

    judge: str
    usage: TokenUsage | None
    cost: float | None
    latency_s: float
    queue_s: float = 0.0


def response_to_json(response: JudgeResponse) -> str:
    """Serialise a judge response (without anything secret: a response holds none)."""
    return json.dumps(
        {
            "data": response.data,
            "raw_text": response.raw_text,
            "usage": response.usage.model_dump() if response.usage else None,
            "cost": response.cost,
            "latency_s": response.latency_s,
            "queue_s": response.queue_s,
            "reasoning": response.reasoning,
            "model": response.model,
            "attempts": response.attempts,
            "probabilities": dict(response.probabilities) if response.probabilities else None,
            "features": base64.b64encode(response.features).decode("ascii")
            if response.features is not None
            else None,
        }
    )


def response_from_json(text: str) -> JudgeResponse:
    """Load a stored response, marked ``cached`` (replaying it costs nothing new)."""
    d = json.loads(text)
    usage = TokenUsage.model_validate(d["usage"]) if d.get("usage") else None
    return JudgeResponse(
        data=d["data"],
        raw_text=d["raw_text"],
        usage=usage,
        cost=d.get("cost"),
        latency_s=d.get("latency_s", 0.0),
        queue_s=d.get("queue_s", 0.0),
        cached=True,
        reasoning=d.get("reasoning"),
        model=d.get("model", ""),
        attempts=d.get("attempts", 1),
        probabilities=d.get("probabilities"),
        features=base64.b64decode(d["features"]) if d.get("features") else None,
    )


_PUT_JUDGMENT = (
    "INSERT OR IGNORE INTO judgments (item_key, request_hash, occurrence, judge, "
    "response, prompt_tokens, completion_tokens, total_tokens, cost, latency_s, "
    "created, tags, queue_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_PUT_ITEM = "INSERT OR REPLACE INTO items VALUES (?, ?, ?, ?, ?, ?, ?)"


def _judgment_row(
    item_key: str,
    request_hash: str,
    occurrence: int,
    judge: str,
    r: JudgeResponse,
    tags: str | None,
) -> tuple[Any, ...]:
    u = r.usage
    return (
        item_key,
        request_hash,
        occurrence,
        judge,
        response_to_json(r),
        u.prompt_tokens if u else None,
        u.completion_tokens if u else None,
        u.total_tokens if u else None,
        r.cost,
        r.latency_s,
        time.time(),
        tags,
        r.queue_s,
    )


class RunStore:
    """The SQLite file of one run directory."""

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / DB_NAME
        try:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode survives a killed process (not a power cut) and is fast
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=10000")
            self._migrate()
        except (OSError, sqlite3.Error) as e:
            raise RunError(f"cannot open run store {self.path}: {e}") from None
        self._later = Committer(self.path)

    def _migrate(self) -> None:
        db = self._db
        db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied REAL)")
        done = {r[0] for r in db.execute("SELECT name FROM _migrations")}
        for name, fn in MIGRATIONS:
            if name in done:
                continue
            db.execute("BEGIN IMMEDIATE")
            try:
                fn(db)
                db.execute("INSERT INTO _migrations VALUES (?, ?)", (name, time.time()))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        """Commit what is queued, then close the connections."""
        self._later.close()
        self._db.close()

    def _settled(self) -> sqlite3.Connection:
        """The connection, once every queued write is committed (readers see them all)."""
        if not self._db.in_transaction:  # inside one, the writer would wait for it: deadlock
            self._later.drain()
        return self._db

    # -- meta ------------------------------------------------------------------
    def meta(self) -> dict[str, str]:
        """Return every meta entry."""
        return dict(self._settled().execute("SELECT key, value FROM meta").fetchall())

    def set_meta(self, values: dict[str, str]) -> None:
        """Write meta entries in one transaction."""
        with self._tx():
            self._db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())

    # -- judgments -------------------------------------------------------------
    def get_judgment(self, item_key: str, request_hash: str, occurrence: int) -> str | None:
        """Return the stored response JSON of a judgment, or None."""
        # no wait for queued writes: this session's rows are never looked up again in it
        row = self._db.execute(
            "SELECT response FROM judgments WHERE item_key=? AND request_hash=? AND occurrence=?",
            (item_key, request_hash, occurrence),
        ).fetchone()
        return None if row is None else str(row[0])

    def put_judgment(
        self,
        item_key: str,
        request_hash: str,
        occurrence: int,
        judge: str,
        r: JudgeResponse,
        tags: str | None = None,
    ) -> None:
        """Commit one judgment (its own transaction)."""
        row = _judgment_row(item_key, request_hash, occurrence, judge, r, tags)
        self._settled().execute(_PUT_JUDGMENT, row)

    async def commit_judgment(
        self,
        item_key: str,
        request_hash: str,
        occurrence: int,
        judge: str,
        r: JudgeResponse,
        tags: str | None = None,
    ) -> None:
        """Commit one judgment with others that arrive meanwhile; return once it is committed."""
        row = _judgment_row(item_key, request_hash, occurrence, judge, r, tags)
        await self._later.submit(_PUT_JUDGMENT, row)

    def judgment_rows(self) -> Iterator[JudgmentRow]:
        """Yield every stored judgment's numbers."""
        cur = self._settled().execute(
            "SELECT judge, prompt_tokens, completion_tokens, total_tokens, cost, latency_s, "
            "queue_s FROM judgments"
        )
        for judge, pt, ct, tt, cost, lat, queued in cur:
            usage = (
                None
                if pt is None
                else TokenUsage(prompt_tokens=pt, completion_tokens=ct, total_tokens=tt)
            )
            yield JudgmentRow(judge, usage, cost, lat or 0.0, queued or 0.0)

    def iter_judgments(self) -> Iterator[tuple[str, str, str | None, str]]:
        """Yield every stored judgment as (item key, judge, tags JSON, response JSON)."""
        cur = self._settled().execute(
            "SELECT item_key, judge, tags, response FROM judgments ORDER BY rowid"
        )
        for key, judge, tags, response in cur:
            yield str(key), str(judge), tags, str(response)

    def judgments_of(self, item_key: str) -> list[tuple[str, int, str]]:
        """Return one item's stored judgments as (request hash, occurrence, response JSON)."""
        cur = self._settled().execute(
            "SELECT request_hash, occurrence, response FROM judgments WHERE item_key=?",
            (item_key,),
        )
        return [(str(h), int(o), str(r)) for h, o, r in cur]

    def items_with_judgments(self) -> set[str]:
        """Return the keys of the items that have at least one stored judgment."""
        return {r[0] for r in self._settled().execute("SELECT DISTINCT item_key FROM judgments")}

    def count_judgments(self) -> int:
        """Count the stored judgments."""
        return int(self._settled().execute("SELECT COUNT(*) FROM judgments").fetchone()[0])

    # -- items -----------------------------------------------------------------
    def put_item(
        self,
        key: str,
        index: int,
        status: str,
        score: float | None,
        report_json: str | None,
        error: str | None,
    ) -> None:
        """Commit one item's outcome (its own transaction), replacing an earlier one."""
        self._settled().execute(
            _PUT_ITEM, (key, index, status, score, report_json, error, time.time())
        )

    async def commit_item(
        self,
        key: str,
        index: int,
        status: str,
        score: float | None,
        report_json: str | None,
        error: str | None,
    ) -> None:
        """:meth:`put_item` grouped with other writes; return once it is committed."""
        row = (key, index, status, score, report_json, error, time.time())
        await self._later.submit(_PUT_ITEM, row)

    def get_report(self, key: str) -> str | None:
        """Return the stored report JSON of one item, or None."""
        row = (
            self._settled().execute("SELECT report FROM items WHERE item_key=?", (key,)).fetchone()
        )
        return None if row is None or row[0] is None else str(row[0])

    def item_statuses(self) -> dict[str, str]:
        """Return the status of every stored item, by key."""
        return dict(self._settled().execute("SELECT item_key, status FROM items").fetchall())

    def iter_items(self, *, with_reports: bool = True) -> Iterator[StoredItem]:
        """Yield every stored item, in dataset order."""
        col = "report" if with_reports else "NULL"
        cur = self._settled().execute(
            f"SELECT item_key, idx, status, score, {col}, error FROM items ORDER BY idx"
        )
        for key, idx, status, score, report, error in cur:
            yield StoredItem(key, idx, status, score, report, error)

    def clear(self, *, judgments: bool) -> None:
        """Forget the item results (and the judgments too when ``judgments``)."""
        with self._tx():
            self._db.execute("DELETE FROM items")
            if judgments:  # batches answer judgments: they go with them
                self._db.execute("DELETE FROM judgments")
                self._db.execute("DELETE FROM batch_requests")
                self._db.execute("DELETE FROM batches")

    @property
    def db(self) -> sqlite3.Connection:
        """The connection (autocommit; wrap related writes in :meth:`transaction`)."""
        return self._settled()

    def transaction(self) -> Any:
        """A context manager: one ``BEGIN IMMEDIATE`` transaction, rolled back on error."""
        return self._tx()

    def _tx(self) -> Any:
        db = self._settled()

        class _Tx:
            def __enter__(self) -> None:
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, exc_type: Any, *_: Any) -> None:
                db.execute("ROLLBACK" if exc_type else "COMMIT")

        return _Tx()
