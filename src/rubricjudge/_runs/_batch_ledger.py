"""The run store's record of provider batches: what was asked, in which batch, what came back.

Every request a batch will carry is a row of ``batch_requests`` (keyed by its
``custom_id``, and by the judgment it answers: item, request hash, occurrence).
A batch is a row of ``batches``, written with its requests assigned to it in one
transaction *before* anything is uploaded; the uploaded file's id, the time the
create call was first made (``intent``, committed just before it) and the
provider's batch id are each committed the moment they are known. So a process
killed at any point finds, on resume, either a batch it never asked to create
(its requests are still its own and are sent again), or a create call with no
batch id yet (the provider's list of batches is searched, by input file or by
creation time and size, before a new batch is created), or a batch id to poll.

Request states: ``pending`` (no batch), ``queued`` (in a batch not yet
collected), ``done`` (its answer is a stored judgment), ``error`` (a recorded
judge failure).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .._judges._base import JudgeResponse
from .._judges._batch_common import TERMINAL
from ._store import RunStore

__all__ = ["TERMINAL", "BatchLedger", "BatchRow", "PendingRequest", "RequestState"]


@dataclass(frozen=True)
class BatchRow:
    """One batch as the store knows it."""

    id: int
    provider: str
    judge: str
    input_file_id: str | None
    batch_id: str | None
    status: str
    requests: int
    intent: float | None = None


@dataclass(frozen=True)
class PendingRequest:
    """A request with no answer yet, as it goes into a batch file."""

    custom_id: str
    body: str
    submissions: int


@dataclass(frozen=True)
class RequestState:
    """Where one request stands: its state and, for ``error``, the recorded failure."""

    state: str
    error: str | None = None
    category: str | None = None


class BatchLedger:
    """Reads and writes the batch tables of one run store."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self._db = store.db
        self._new: list[tuple[Any, ...]] = []

    # -- requests ----------------------------------------------------------------
    def state(self, item: str, digest: str, occurrence: int) -> RequestState | None:
        """Where the request answering (item, digest, occurrence) stands, or None if unknown."""
        row = self._db.execute(
            "SELECT state, error, category FROM batch_requests "
            "WHERE item_key=? AND request_hash=? AND occurrence=?",
            (item, digest, occurrence),
        ).fetchone()
        return None if row is None else RequestState(row[0], row[1], row[2])

    def add(
        self,
        custom_id: str,
        key: tuple[str, str, int],
        judge: str,
        body: str,
        decision: str | None,
        tags: str | None,
    ) -> None:
        """Note a new pending request; written by :meth:`flush` (or every 500)."""
        item, digest, occurrence = key
        self._new.append(
            (custom_id, item, digest, occurrence, judge, body, decision, tags, time.time())
        )
        if len(self._new) >= 500:
            self.flush()

    def flush(self) -> None:
        """Commit the requests noted since the last flush, in one transaction."""
        if not self._new:
            return
        with self.store.transaction():
            self._db.executemany(
                "INSERT OR IGNORE INTO batch_requests (custom_id, item_key, request_hash, "
                "occurrence, judge, body, decision, tags, state, updated) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
                self._new,
            )
        self._new.clear()

    def pending(self, judge: str, *, limit: int) -> Iterator[PendingRequest]:
        """Yield at most ``limit`` pending requests of ``judge``, oldest first."""
        cur = self._db.execute(
            "SELECT custom_id, body, submissions FROM batch_requests "
            "WHERE state='pending' AND judge=? ORDER BY rowid LIMIT ?",
            (judge, limit),
        )
        for cid, body, subs in cur.fetchall():
            yield PendingRequest(str(cid), str(body), int(subs))

    def pending_judges(self) -> list[str]:
        """The judges with pending requests."""
        rows = self._db.execute("SELECT DISTINCT judge FROM batch_requests WHERE state='pending'")
        return sorted(str(r[0]) for r in rows)

    def request(self, custom_id: str) -> tuple[str, str, int, str, str | None, str | None] | None:
        """(item, digest, occurrence, state, decision JSON, tags JSON) of one request."""
        row = self._db.execute(
            "SELECT item_key, request_hash, occurrence, state, decision, tags "
            "FROM batch_requests WHERE custom_id=?",
            (custom_id,),
        ).fetchone()
        return None if row is None else (row[0], row[1], int(row[2]), row[3], row[4], row[5])

    def sent_in(self, custom_id: str, local: int) -> bool:
        """Whether the request ``custom_id`` was sent in the batch ``local`` (its last one)."""
        row = self._db.execute(
            "SELECT 1 FROM batch_requests WHERE custom_id=? AND batch=?", (custom_id, local)
        ).fetchone()
        return row is not None

    def void(self, custom_id: str, local: int, message: str) -> bool:
        """Drop what batch ``local`` answered for the request and record ``message`` instead.

        For a result file that answers one request twice: neither answer can be
        trusted. No transaction of its own; returns whether a stored answer was dropped.
        """
        got = self.request(custom_id)
        if got is None or not self.sent_in(custom_id, local):
            return False
        item, digest, occurrence, state, _, _ = got
        dropped = False
        if state == "done":
            cur = self._db.execute(
                "DELETE FROM judgments WHERE item_key=? AND request_hash=? AND occurrence=?",
                (item, digest, occurrence),
            )
            dropped = cur.rowcount > 0
        self._db.execute(
            "UPDATE batch_requests SET state='error', error=?, category='server', body=NULL, "
            "updated=? WHERE custom_id=?",
            (message, time.time(), custom_id),
        )
        return dropped

    def body(self, custom_id: str) -> str | None:
        """The stored request body (kept until the request is settled)."""
        row = self._db.execute(
            "SELECT body FROM batch_requests WHERE custom_id=?", (custom_id,)
        ).fetchone()
        return None if row is None else row[0]

    def answer(self, custom_id: str, judge: str, response: JudgeResponse) -> str | None:
        """Commit ``response`` as the request's judgment (no transaction of its own).

        Returns the item key, or None when the request is unknown or already answered.
        """
        got = self.request(custom_id)
        if got is None or got[3] in ("done", "error"):
            return None
        item, digest, occurrence, _, _, tags = got
        self.store.put_judgment(item, digest, occurrence, judge, response, tags)
        self._db.execute(
            "UPDATE batch_requests SET state='done', body=NULL, updated=? WHERE custom_id=?",
            (time.time(), custom_id),
        )
        return item

    def fail(self, custom_id: str, message: str, category: str) -> bool:
        """Record a judge failure for the request (no transaction of its own)."""
        cur = self._db.execute(
            "UPDATE batch_requests SET state='error', error=?, category=?, body=NULL, updated=? "
            "WHERE custom_id=? AND state IN ('pending', 'queued')",
            (message, category, time.time(), custom_id),
        )
        return cur.rowcount > 0

    def requeue(self, custom_id: str) -> None:
        """Put a request back to pending (it gets into a later batch)."""
        self._db.execute(
            "UPDATE batch_requests SET state='pending', batch=NULL, updated=? "
            "WHERE custom_id=? AND state='queued'",
            (time.time(), custom_id),
        )

    def counts(self) -> dict[str, int]:
        """How many requests are in each state."""
        rows = self._db.execute("SELECT state, COUNT(*) FROM batch_requests GROUP BY state")
        return {str(s): int(n) for s, n in rows}

    # -- batches -----------------------------------------------------------------
    def new_batch(self, provider: str, judge: str, custom_ids: Sequence[str]) -> int:
        """Commit a batch about to be uploaded, with its requests assigned to it."""
        now = time.time()
        with self.store.transaction():
            cur = self._db.execute(
                "INSERT INTO batches (provider, judge, status, requests, created, updated) "
                "VALUES (?, ?, 'preparing', ?, ?, ?)",
                (provider, judge, len(custom_ids), now, now),
            )
            local = int(cur.lastrowid or 0)
            self._db.executemany(
                "UPDATE batch_requests SET batch=?, state='queued', "
                "submissions=submissions+1, updated=? WHERE custom_id=? AND state='pending'",
                [(local, now, cid) for cid in custom_ids],
            )
        return local

    def batch_lines(self, local: int) -> Iterator[tuple[str, str]]:
        """Yield (custom_id, body) of the requests a batch carries."""
        cur = self._db.execute(
            "SELECT custom_id, body FROM batch_requests WHERE batch=? AND state='queued' "
            "ORDER BY rowid",
            (local,),
        )
        for cid, body in cur.fetchall():
            yield str(cid), str(body)

    def set_file(self, local: int, file_id: str) -> None:
        """Commit the uploaded input file's id."""
        self._db.execute(
            "UPDATE batches SET input_file_id=?, updated=? WHERE id=?",
            (file_id, time.time(), local),
        )

    def set_intent(self, local: int) -> float:
        """Commit the time of the first create call of a batch (kept if already set)."""
        self._db.execute(
            "UPDATE batches SET intent=COALESCE(intent, ?), updated=? WHERE id=?",
            (time.time(), time.time(), local),
        )
        row = self._db.execute("SELECT intent FROM batches WHERE id=?", (local,)).fetchone()
        return float(row[0])

    def batch_ids(self) -> set[str]:
        """The provider ids of the batches this run created or adopted."""
        rows = self._db.execute("SELECT batch_id FROM batches WHERE batch_id IS NOT NULL")
        return {str(r[0]) for r in rows}

    def set_batch(self, local: int, batch: dict[str, Any]) -> None:
        """Commit what the provider says of a batch (its id first of all)."""
        counts = (
            batch.get("request_counts") if isinstance(batch.get("request_counts"), dict) else {}
        )
        errors = batch.get("errors")
        self._db.execute(
            "UPDATE batches SET batch_id=?, status=?, done=?, failed=?, output_file_id=?, "
            "error_file_id=?, errors=?, updated=? WHERE id=?",
            (
                str(batch["id"]),
                str(batch.get("status") or "validating"),
                int((counts or {}).get("completed") or 0),
                int((counts or {}).get("failed") or 0),
                batch.get("output_file_id"),
                batch.get("error_file_id"),
                json.dumps(errors) if errors else None,
                time.time(),
                local,
            ),
        )

    def mark_collected(self, local: int) -> None:
        """Note that a finished batch's results are all committed."""
        self._db.execute(
            "UPDATE batches SET collected=1, updated=? WHERE id=?", (time.time(), local)
        )

    def open_batches(self) -> list[BatchRow]:
        """The batches whose results are not all committed yet, oldest first."""
        cur = self._db.execute(
            "SELECT id, provider, judge, input_file_id, batch_id, status, requests, intent "
            "FROM batches WHERE collected=0 ORDER BY id"
        )
        return [BatchRow(*r) for r in cur.fetchall()]

    def unanswered(self, local: int) -> list[tuple[str, int]]:
        """(custom_id, submissions) of the requests of a batch that got no result."""
        cur = self._db.execute(
            "SELECT custom_id, submissions FROM batch_requests WHERE batch=? AND state='queued'",
            (local,),
        )
        return [(str(c), int(s)) for c, s in cur.fetchall()]

    def batch_counts(self) -> tuple[int, int]:
        """(batches collected, batches in all) of this run."""
        row = self._db.execute("SELECT COALESCE(SUM(collected), 0), COUNT(*) FROM batches")
        done, total = row.fetchone()
        return int(done), int(total)
