"""The judge wrapper of ``--batch-api`` runs: answers from the store, or a request for a batch.

A :class:`BatchJudge` is a :class:`RecordingJudge` that never calls its judge.
A stored judgment is replayed as usual; a request without one is written to the
batch ledger (once: a request already pending or in a batch is only waited for)
and the call fails with :class:`Deferred`, a :class:`JudgeError` the grader
records like any failure, so the item's grading finishes without its answer.
Once the batches have answered, the grader runs again and every answer replays.
A request the provider failed raises its recorded :class:`JudgeError` in every
pass, so it is reported like any judge failure and never scored.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, cast, get_args

from .._errors import JudgeError, JudgeErrorCategory
from .._judges._base import Judge, JudgeRequest, JudgeResponse
from ._batch_ledger import BatchLedger
from ._recording import RecordingJudge
from ._store import RunStore, response_from_json

__all__ = ["BatchJudge", "Deferred", "custom_id"]


class Deferred(JudgeError):
    """The answer to this request comes from a provider batch that has not answered yet."""


def custom_id(item: str, digest: str, occurrence: int) -> str:
    """The ``custom_id`` of a request: the same for the same judgment in every session."""
    key = f"{item}\0{digest}\0{occurrence}".encode()
    return "rq-" + hashlib.sha256(key).hexdigest()[:40]


class BatchJudge(RecordingJudge):
    """Replays stored judgments; sends the rest to the batch ledger (see the module doc).

    Until :attr:`ledger` and :attr:`adapter` are set it behaves as a RecordingJudge.
    """

    group_commits = False  # the ledger writes on the store's own connection, in order

    def __init__(
        self, inner: Judge, store: RunStore | None, *, stored_items: set[str] | None = None
    ) -> None:
        super().__init__(inner, store, stored_items=stored_items)
        self.ledger: BatchLedger | None = None
        self.adapter: Any = None
        self.final = False
        self.waiting = 0

    async def ask(
        self, request: JudgeRequest, item: str, digest: str, occurrence: int
    ) -> JudgeResponse:
        """Defer ``request`` to a batch, or raise the failure a batch recorded for it."""
        ledger, store = self.ledger, self._store
        if ledger is None or store is None:
            return await super().ask(request, item, digest, occurrence)
        state = ledger.state(item, digest, occurrence)
        if state is not None and state.state == "error":
            if self.final:
                self.errors += 1
            raise JudgeError(state.error or "the batch request failed", category=_cat(state))
        if state is not None and state.state == "done":
            # answered, though the answer does not fit the schema: the grader judges it
            stored = store.get_judgment(item, digest, occurrence)
            if stored is not None:
                return response_from_json(stored)
        if self.final:
            self.errors += 1
            raise JudgeError(f"{self.name}: no batch answered this request", category="unknown")
        if state is None:
            body = self.adapter.body(request)
            decision = request.decision
            ledger.add(
                custom_id(item, digest, occurrence),
                (item, digest, occurrence),
                self.name,
                body,
                json.dumps([decision.key, list(decision.values)]) if decision else None,
                json.dumps(dict(request.tags), default=str) if request.tags else None,
            )
        self.waiting += 1
        raise Deferred(f"{self.name}: waiting for a provider batch", category="unknown")


def _cat(state: Any) -> JudgeErrorCategory:
    known: tuple[str, ...] = get_args(JudgeErrorCategory)
    return cast(JudgeErrorCategory, state.category if state.category in known else "unknown")
