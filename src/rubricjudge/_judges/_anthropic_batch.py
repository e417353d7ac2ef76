"""Anthropic's Message Batches API for an ``anthropic/<model>`` judge.

``POST /v1/messages/batches`` takes the requests inline (``{"requests":
[{"custom_id", "params"}]}``, ``params`` exactly the ``messages.create``
arguments the judge would send); ``GET /v1/messages/batches/{id}`` reports
``processing_status`` (``in_progress``, ``canceling``, ``ended``) and
``request_counts``; once ended, ``results_url`` streams one JSONL line per
request, ``{"custom_id", "result": {"type": "succeeded" | "errored" | "canceled"
| "expired", ...}}``. Documented limits: 100,000 requests or 256 MB per batch.
Each succeeded message is read by the judge's own reply reader, so a batch
answer equals a live one. Transient failures of these endpoints are retried;
the creation of a batch is tried once (see :meth:`AnthropicBatches.find`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from .._errors import JudgeError, JudgeErrorCategory, RunError
from ._anthropic import _OFFICIAL, AnthropicJudge
from ._base import Decision, JudgeRequest
from ._batch_common import (
    LARGEST_BATCH_BYTES,
    LARGEST_BATCH_REQUESTS,
    AmbiguousBatch,
    BatchHTTP,
    LineResult,
    batch_priced,
)
from ._reliable import ReliableJudge
from ._retry import TRANSIENT

__all__ = ["API_VERSION", "MAX_BATCH_BYTES", "MAX_BATCH_REQUESTS", "AnthropicBatches"]

MAX_BATCH_REQUESTS = LARGEST_BATCH_REQUESTS
MAX_BATCH_BYTES = LARGEST_BATCH_BYTES
API_VERSION = "2023-06-01"
PATH = "/v1/messages/batches"
CLOCK_SLACK_S = 300.0
"""How far the provider's clock may run behind ours when matching ``created_at``."""

_CATEGORIES: dict[str, JudgeErrorCategory] = {
    "invalid_request_error": "bad_request",
    "request_too_large": "bad_request",
    "not_found_error": "bad_request",
    "authentication_error": "auth",
    "permission_error": "auth",
    "billing_error": "auth",
    "rate_limit_error": "rate_limit",
    "api_error": "server",
    "overloaded_error": "server",
    "timeout_error": "timeout",
}
_SDK_ONLY = ("timeout", "extra_headers", "extra_body")


class AnthropicBatches:
    """The Message Batches API of the endpoint an :class:`AnthropicJudge` talks to."""

    provider = "anthropic"
    max_requests = MAX_BATCH_REQUESTS
    max_bytes = MAX_BATCH_BYTES

    def __init__(self, judge: AnthropicJudge, reliable: ReliableJudge | None = None) -> None:
        self.judge = judge
        self.reliable = reliable
        base = (judge.base_url or _OFFICIAL).strip().rstrip("/")
        if base.endswith("/v1"):  # the SDK's base URL has no /v1; accept one given anyway
            base = base[:-3]
        headers = {
            **dict(judge.config.extra_headers or {}),
            "x-api-key": judge._api_key,
            "anthropic-version": API_VERSION,
        }
        self.http = BatchHTTP(
            "Anthropic Message Batches API", base, headers, judge.config.timeout_s
        )

    # -- requests ----------------------------------------------------------------
    def body(self, request: JudgeRequest) -> str:
        """The ``messages.create`` params of ``request`` (SDK-only options folded in)."""
        params = self.judge.params(request)
        extra = params.get("extra_body") or {}
        params = {k: v for k, v in params.items() if k not in _SDK_ONLY}
        params.update(extra)  # the SDK merges extra_body into the JSON body the same way
        return json.dumps(params)

    def line(self, custom_id: str, body: str) -> bytes:
        """One element of the ``requests`` array (with the comma that follows it)."""
        head = json.dumps({"custom_id": custom_id})
        return (head[:-1] + ', "params": ' + body + "},").encode()

    async def upload(self, path: Path) -> None:
        """Nothing to upload: the requests go inline with the create call."""
        return None

    async def create(
        self, file_id: str | None, lines: Callable[[], list[bytes]], local: int
    ) -> dict[str, Any]:
        """Create a batch of the requests; returns the normalised batch."""

        def payload() -> bytes:
            joined = b"".join(lines())
            return b'{"requests": [' + joined.removesuffix(b",") + b"]}"

        # one try: a lost reply may hide a created batch; the caller looks before retrying
        got = await self.http.json(
            "POST",
            PATH,
            data=payload,
            headers={**self.http.headers, "content-type": "application/json"},
            tries=1,
        )
        return _normal(got)

    async def find(
        self,
        file_id: str | None,
        requests: int,
        since: float | None,
        known: set[str],
        *,
        pages: int = 20,
    ) -> dict[str, Any] | None:
        """The batch a create whose reply was lost made, matched by time and size.

        Anthropic batches carry no input file and no metadata, so the only marks a
        created batch shares with its row are its creation time (at or after the
        row's intent time, committed just before the create call) and its number
        of requests. A batch created since then, with exactly that many requests
        and not already adopted by this run, is taken as ours when it is the only
        one. That is sound when nothing else in the workspace creates batches of
        the same size at the same time; another run, another program or a user on
        the same workspace can. Adopting the wrong one costs no wrong answer (its
        results are matched by ``custom_id``, which is a hash of the question, so
        a stranger's results are ignored and their requests asked again) but it
        does leave our own batch unread; so two or more candidates are never
        guessed between: :class:`AmbiguousBatch` names them and the way out.
        """
        if since is None:  # no create call was ever made for this row
            return None
        floor = since - CLOCK_SLACK_S
        found: list[dict[str, Any]] = []
        after: str | None = None
        for _ in range(pages):
            params = {"limit": "100", **({"after_id": after} if after else {})}
            got = await self.http.json("GET", PATH, params=params)
            data = [b for b in got.get("data") or [] if isinstance(b, dict)]
            older = False
            for batch in data:  # newest first
                created = _timestamp(batch.get("created_at"))
                if created is not None and created < floor:
                    older = True
                    break
                if str(batch.get("id")) not in known and _total(batch) == requests:
                    found.append(batch)
            if older or not got.get("has_more") or not data:
                break
            after = str(got.get("last_id") or data[-1].get("id"))
        if len(found) > 1:
            ids = ", ".join(str(b.get("id")) for b in found)
            raise AmbiguousBatch(
                f"a batch of {requests} requests was created but its id never came back, and "
                f"{len(found)} batches of that size were created since: {ids}. rubricjudge "
                "cannot tell which is this run's, and will not create another silently. "
                "Cancel the ones that are not yours in the Anthropic console and resume, or "
                "resume with --batch-resubmit-lost (resubmit_lost=True) to send the requests "
                "in a new batch (the lost one is then paid for but never read)"
            )
        return _normal(found[0]) if found else None

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        """The batch now, normalised."""
        return _normal(await self.http.json("GET", f"{PATH}/{batch_id}"))

    def lines(self, file_id: str) -> AsyncIterator[bytes]:
        """The JSONL lines at a batch's ``results_url``."""
        url = file_id if "://" in file_id else self.http.base + file_id
        return self.http.stream(url)

    # -- results -----------------------------------------------------------------
    def read(self, obj: Any, decision: Decision | None, body: str | None) -> LineResult:
        """Read one result line with the judge's reply reader."""
        import anthropic
        import pydantic

        cid = str(obj.get("custom_id") or "") if isinstance(obj, dict) else ""
        result = obj.get("result") if isinstance(obj, dict) else None
        kind = result.get("type") if isinstance(result, dict) else None
        if not isinstance(result, dict) or kind not in ("succeeded", "errored"):
            if kind in ("canceled", "expired"):
                return LineResult(cid, error=f"the request was {kind} before it ran", retry=True)
            return LineResult(cid, error=f"unknown result {result!r}", category="server")
        if kind == "errored":
            error = result.get("error")
            inner = error.get("error") if isinstance(error, dict) else None
            inner = inner if isinstance(inner, dict) else {}
            etype = str(inner.get("type") or "api_error")
            category = _CATEGORIES.get(etype, "unknown")
            text = f"{etype}: {inner.get('message') or 'no message'}"
            return LineResult(cid, error=text, category=category, retry=category in TRANSIENT)
        try:
            message = anthropic.types.Message.model_validate(result.get("message"))
        except pydantic.ValidationError as e:
            first = e.errors()[0]["msg"] if e.errors() else str(e)
            return LineResult(cid, error=f"the message does not parse: {first}", category="parse")
        try:
            got = self.judge._read(message, _tool(body), 0.0)
        except JudgeError as e:
            return LineResult(cid, error=str(e), category=e.category)
        return LineResult(cid, response=batch_priced(self.reliable, got))


def _tool(body: str | None) -> str:
    """The name of the tool the request offered (the judge's reader expects it)."""
    try:
        tools = json.loads(body or "{}").get("tools") or [{}]
        return str(tools[0].get("name") or "judgment")
    except (ValueError, AttributeError):
        return "judgment"


def _total(batch: dict[str, Any]) -> int:
    counts = batch.get("request_counts")
    if not isinstance(counts, dict):
        return -1
    return sum(int(v or 0) for v in counts.values() if isinstance(v, int))


def _timestamp(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _normal(batch: dict[str, Any]) -> dict[str, Any]:
    """The batch in the shape the run engine reads (see ``_batch_common``)."""
    bid = batch.get("id")
    if not isinstance(bid, str) or not bid:
        raise RunError(f"Anthropic Message Batches API: a batch has no id: {batch!r}")
    counts = batch.get("request_counts")
    counts = counts if isinstance(counts, dict) else {}
    status = str(batch.get("processing_status") or "in_progress")
    failed = sum(int(counts.get(k) or 0) for k in ("errored", "canceled", "expired"))
    return {
        "id": bid,
        "status": status,
        "request_counts": {"completed": int(counts.get("succeeded") or 0), "failed": failed},
        "output_file_id": batch.get("results_url") if status == "ended" else None,
        "error_file_id": None,
        "errors": None,
    }
