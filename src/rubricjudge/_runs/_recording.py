"""A judge wrapper that commits every answer to the run store and replays it on resume.

Graders need not know about runs: ``evaluate`` hands them a
:class:`RecordingJudge` in place of each judge. A judgment is keyed by the item
being graded, a hash of the request (system, user, schema, sampling settings)
with the judge's name, and its occurrence, so a grader that asks the same
question twice on purpose (sampling several votes) gets two judgments.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import time
import weakref
from typing import Any, Protocol

from .._judges._base import Judge, JudgeRequest, JudgeResponse, with_changes
from .._judges._canonical import canonical_json
from .._judges._provider_limits import Gate, ProviderLimits
from .._judges._schema_check import schema_accepts
from ._store import JudgmentRow, RunStore, response_from_json

__all__ = ["CURRENT_ITEM", "JudgmentStore", "RecordingJudge", "request_hash"]

CURRENT_ITEM: contextvars.ContextVar[str] = contextvars.ContextVar("rubricjudge_item", default="")


class JudgmentStore(Protocol):
    """Where a :class:`RecordingJudge` looks answers up and commits them (a :class:`RunStore`)."""

    def get_judgment(self, item_key: str, request_hash: str, occurrence: int) -> str | None:
        """Return the stored response JSON of a judgment, or None."""

    def put_judgment(
        self,
        item_key: str,
        request_hash: str,
        occurrence: int,
        judge: str,
        r: JudgeResponse,
        tags: str | None = None,
    ) -> None:
        """Commit one judgment."""


def request_hash(judge_name: str, request: JudgeRequest) -> str:
    """Hash what decides a judge's answer (tags are left out)."""
    payload: dict[str, Any] = {
        "judge": judge_name,
        "system": request.system,
        "user": request.user,
        "schema": request.schema,
        "schema_name": request.schema_name,
        "temperature": request.temperature,
        "seed": request.seed,
        "max_tokens": request.max_tokens,
    }
    if request.decision is not None:  # absent otherwise, so older runs still resume
        payload["decision"] = [request.decision.key, list(request.decision.values)]
    if request.features:  # likewise: asking for the hidden state is another question
        payload["features"] = True
    # json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str), schema reused
    text = canonical_json(payload)
    return hashlib.sha256(text.encode()).hexdigest()


_COMMIT_GATES: weakref.WeakKeyDictionary[ProviderLimits, Gate] = weakref.WeakKeyDictionary()


def _commit_gate(judge: Judge) -> Gate | None:
    """A gate as wide as ``judge``'s provider limit on calls in flight (None: none known).

    A call holds it from before it is sent until its answer is committed, so at any
    moment at most that many calls are sent and not committed: a process killed then
    loses no more than the calls in flight, as when each answer was committed alone.
    """
    limits = getattr(judge, "limits", None)
    if not isinstance(limits, ProviderLimits) or limits.gate.limit is None:
        return None
    gate = _COMMIT_GATES.get(limits)
    if gate is None:
        gate = _COMMIT_GATES[limits] = Gate(limits.gate.limit)
    return gate


class RecordingJudge:
    """Wraps a judge: replays stored judgments, records new ones as they arrive.

    Without a store it only keeps the numbers of each call (``rows``) for the summary.
    With a :class:`RunStore` and a judge whose provider limits its calls in flight,
    answers are committed in groups on the store's writer thread (see
    :func:`_commit_gate` for why that loses nothing more); otherwise each is committed
    on its own as it arrives.
    """

    group_commits = True
    """Whether this class may commit through the store's writer (a subclass may not)."""

    def __init__(
        self,
        inner: Judge,
        store: JudgmentStore | None,
        *,
        stored_items: set[str] | None = None,
    ) -> None:
        self._inner = inner
        self._store = store
        # items with stored judgments; the others need no lookup (a fresh run asks nothing)
        self._stored_items = stored_items
        self.rows: list[JudgmentRow] = []
        self._seen: dict[str, dict[str, int]] = {}
        self.calls = 0
        self.replayed = 0
        self.cached = 0  # calls the response cache answered (made, but not asked again)
        self.errors = 0
        self._later: RunStore | None = None
        self._gate: Gate | None = None
        if self.group_commits and isinstance(store, RunStore):
            self._gate = _commit_gate(inner)
            self._later = store if self._gate is not None else None

    @property
    def name(self) -> str:
        """The wrapped judge's name."""
        return self._inner.name

    @property
    def inner(self) -> Judge:
        """The wrapped judge."""
        return self._inner

    @property
    def preferred_verdict_method(self) -> str | None:
        """The wrapped judge's preferred reply layout (graders ask the judge they hold)."""
        return getattr(self._inner, "preferred_verdict_method", None)

    @property
    def default_calibration(self) -> Any:
        """The wrapped judge's own calibration file, if it ships one."""
        return getattr(self._inner, "default_calibration", None)

    async def judge(self, request: JudgeRequest) -> JudgeResponse:
        """Replay the stored answer to ``request``, or ask the judge and commit its answer."""
        item = CURRENT_ITEM.get()
        store = self._store
        if store is None:
            # nothing to replay or commit: no key needed (hashing the prompt costs about as
            # much CPU as the judge call itself, and reward batches run without a store)
            response = await self.ask(request, item, "", 0)
            self.calls += 1
            self.cached += response.cached
            self.rows.append(_row(self._inner.name, response))
            return response
        digest = request_hash(self._inner.name, request)
        counts = self._seen.setdefault(item, {})
        occurrence = counts.get(digest, 0)
        counts[digest] = occurrence + 1
        known = self._stored_items
        if known is None or item in known:
            stored = store.get_judgment(item, digest, occurrence)
            if stored is not None:
                replay = response_from_json(stored)
                if schema_accepts(request.schema, replay.data):
                    self.replayed += 1
                    return replay
                # a reply that does not answer the question is asked again, not replayed
        if self._later is not None:
            return await self._ask_and_commit(request, item, digest, occurrence)
        response = await self.ask(request, item, digest, occurrence)
        self.calls += 1
        self.cached += response.cached
        if schema_accepts(request.schema, response.data):
            tags = json.dumps(dict(request.tags), default=str) if request.tags else None
            store.put_judgment(item, digest, occurrence, self._inner.name, response, tags)
        else:  # kept for the summary; a rejected reply is not stored to be replayed
            self.rows.append(_row(self._inner.name, response))
        return response

    async def _ask_and_commit(
        self, request: JudgeRequest, item: str, digest: str, occurrence: int
    ) -> JudgeResponse:
        """Ask, and commit the answer through the store's writer, holding the commit gate."""
        gate, store = self._gate, self._later
        assert gate is not None and store is not None
        limits = getattr(self._inner, "limits", None)
        if isinstance(limits, ProviderLimits) and limits.gate.limit != gate.limit:
            gate.set_limit(limits.gate.limit)  # the provider's limit was set again since
        waited = 0.0
        if not gate.try_acquire():
            start = time.perf_counter()
            await gate.acquire()
            waited = time.perf_counter() - start
        try:
            response = await self.ask(request, item, digest, occurrence)
            if waited:  # waiting here for a place is waiting for the limit on calls in flight
                response = with_changes(response, queue_s=response.queue_s + waited)
            self.calls += 1
            self.cached += response.cached
            if schema_accepts(request.schema, response.data):
                tags = json.dumps(dict(request.tags), default=str) if request.tags else None
                await store.commit_judgment(
                    item, digest, occurrence, self._inner.name, response, tags
                )
            else:  # kept for the summary; a rejected reply is not stored to be replayed
                self.rows.append(_row(self._inner.name, response))
            return response
        finally:
            gate.release()

    async def ask(
        self, request: JudgeRequest, item: str, digest: str, occurrence: int
    ) -> JudgeResponse:
        """Ask the wrapped judge (a request with no stored answer); a subclass may defer it."""
        try:
            return await self._inner.judge(request)
        except Exception:
            self.errors += 1
            raise

    def forget_item(self, item: str) -> None:
        """Drop the occurrence counters of a finished item (keeps memory flat)."""
        self._seen.pop(item, None)


def _row(judge: str, r: JudgeResponse) -> JudgmentRow:
    """The numbers of one call the summary keeps when the store does not."""
    return JudgmentRow(judge, r.usage, r.cost, r.latency_s, r.queue_s)
