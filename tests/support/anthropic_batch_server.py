"""A real Anthropic Message Batches server on 127.0.0.1: create, poll, list, results.

Endpoints, as Anthropic documents them (headers ``x-api-key`` and
``anthropic-version`` required, else 401 / 400):

- ``POST /v1/messages/batches`` (``{"requests": [{"custom_id", "params"}]}``) ->
  a batch in ``in_progress``; refused (400) with no requests, more than 100,000,
  a body over 256 MB, a ``custom_id`` missing, repeated or not
  ``[a-zA-Z0-9_-]{1,64}``, or params without ``model``, ``max_tokens``, ``messages``;
- ``GET /v1/messages/batches/{id}`` -> the batch; each poll moves an unheld
  batch one step: in_progress -> ended (``canceling`` -> ended too);
- ``GET /v1/messages/batches?limit=&after_id=`` -> ``{"data", "has_more",
  "first_id", "last_id"}``, newest first;
- ``GET /v1/messages/batches/{id}/results`` -> JSONL, once ended;
- ``POST /v1/messages/batches/{id}/cancel``.

Result lines: ``{"custom_id", "result": {"type": "succeeded", "message"}}``,
``{"type": "errored", "error": {"type": "error", "error": {"type", "message"}}}``,
``{"type": "expired"}`` / ``{"type": "canceled"}``.

Scripting: ``answer(params) -> dict | (error_type, message) | None`` decides each
request (default: a tool call of the forced tool with a valid object for its
schema); ``hold`` keeps batches in_progress; ``expire_after`` applies to the next
batch (the requests past it expire); ``drop_create_reply`` creates the next batch
but drops the connection, ``hang_create`` creates it and never answers (until
``release``); ``foreign(n)`` creates a batch of ``n`` requests as someone else
on the workspace would. The log: ``created`` (ids in creation order), ``sent``
(a Counter of custom_ids over all created batches), ``batched`` (custom_ids per
batch), ``polls``, ``lists``.
"""

from __future__ import annotations

import itertools
import json
import re
import socket
import threading
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from rubricjudge._judges._fake import fake_reply_for_schema
from tests.support.anthropic_server import tool_use
from tests.support.local_server import LocalServer

__all__ = ["AnthropicBatchServer"]

MAX_REQUESTS = 100_000
MAX_BYTES = 256 * 1000 * 1000
_CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_PATH = "/v1/messages/batches"


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class AnthropicBatchServer(LocalServer):
    """The server: script it, read its log; ``base_url`` has no ``/v1`` (as the SDK's)."""

    def __init__(self) -> None:
        self.batches: dict[str, dict[str, Any]] = {}
        self.requests: dict[str, list[dict[str, Any]]] = {}
        self.results: dict[str, list[dict[str, Any]]] = {}
        self.created: list[str] = []
        self.sent: Counter[str] = Counter()
        self.batched: dict[str, list[str]] = {}
        self.polls = 0
        self.lists = 0
        self.answer: Callable[[dict[str, Any]], Any] | None = None
        self.hold = threading.Event()
        self.expire_after: int | None = None
        self.drop_create_reply = False
        self.hang_create = False
        self.release = threading.Event()
        self._ids = itertools.count(1)
        self._lock = threading.RLock()

    def request_handler(self) -> type[BaseHTTPRequestHandler]:
        """The handler class, bound to this server."""
        owner = self

        class Handler(_Handler):
            state = owner

        return Handler

    # -- the API ---------------------------------------------------------------------
    def create(self, body: Any, size: int, *, log: bool = True) -> tuple[int, Any]:
        reqs = body.get("requests") if isinstance(body, dict) else None
        if not isinstance(reqs, list) or not reqs:
            return 400, _err("invalid_request_error", "requests: a non-empty list is required")
        if len(reqs) > MAX_REQUESTS or size > MAX_BYTES:
            return 413, _err("request_too_large", "at most 100,000 requests or 256 MB per batch")
        seen: set[str] = set()
        for n, r in enumerate(reqs):
            cid = r.get("custom_id") if isinstance(r, dict) else None
            if not isinstance(cid, str) or not _CUSTOM_ID.match(cid) or cid in seen:
                return 400, _err("invalid_request_error", f"requests.{n}.custom_id: {cid!r}")
            seen.add(cid)
            params = r.get("params")
            missing = [k for k in ("model", "max_tokens", "messages") if k not in (params or {})]
            if missing:
                return 400, _err("invalid_request_error", f"requests.{n}.params: {missing}")
            extra = {"timeout", "extra_body", "extra_headers"} & set(params)
            if extra:
                return 400, _err("invalid_request_error", f"requests.{n}.params: {extra}")
        with self._lock:
            bid = f"msgbatch_{next(self._ids):04d}"
            now = datetime.now(UTC)
            self.batches[bid] = {
                "id": bid,
                "type": "message_batch",
                "processing_status": "in_progress",
                "request_counts": {
                    "processing": len(reqs),
                    "succeeded": 0,
                    "errored": 0,
                    "canceled": 0,
                    "expired": 0,
                },
                "ended_at": None,
                "created_at": now.isoformat().replace("+00:00", "Z"),
                "expires_at": (now + timedelta(hours=24)).isoformat().replace("+00:00", "Z"),
                "cancel_initiated_at": None,
                "archived_at": None,
                "results_url": None,
            }
            self.requests[bid] = reqs
            self.batches[bid]["_expire_after"] = self.expire_after
            self.expire_after = None
            if log:
                self.created.append(bid)
                self.batched[bid] = [r["custom_id"] for r in reqs]
                self.sent.update(r["custom_id"] for r in reqs)
            return 200, _public(self.batches[bid])

    def foreign(self, n: int) -> str:
        """A batch of ``n`` requests created by someone else on the workspace."""
        reqs = [
            {
                "custom_id": f"other-{i}",
                "params": {"model": "m", "max_tokens": 1, "messages": []},
            }
            for i in range(n)
        ]
        status, batch = self.create({"requests": reqs}, 0, log=False)
        assert status == 200
        return str(batch["id"])

    def retrieve(self, bid: str) -> tuple[int, Any]:
        with self._lock:
            self.polls += 1
            batch = self.batches.get(bid)
            if batch is None:
                return 404, _err("not_found_error", f"no batch {bid!r}")
            status = batch["processing_status"]
            if status == "canceling" or (status == "in_progress" and not self.hold.is_set()):
                self._end(batch)
            return 200, _public(batch)

    def list(self, query: dict[str, list[str]]) -> tuple[int, Any]:
        limit = max(1, min(1000, int((query.get("limit") or ["20"])[0])))
        after = (query.get("after_id") or [None])[0]
        with self._lock:
            self.lists += 1
            newest = sorted(self.batches, reverse=True)
            if after in newest:
                newest = newest[newest.index(after) + 1 :]
            page = newest[:limit]
            return 200, {
                "data": [_public(self.batches[b]) for b in page],
                "has_more": len(newest) > limit,
                "first_id": page[0] if page else None,
                "last_id": page[-1] if page else None,
            }

    def cancel(self, bid: str) -> tuple[int, Any]:
        with self._lock:
            batch = self.batches.get(bid)
            if batch is None:
                return 404, _err("not_found_error", f"no batch {bid!r}")
            if batch["processing_status"] == "in_progress":
                batch["processing_status"] = "canceling"
                batch["cancel_initiated_at"] = _now()
            return 200, _public(batch)

    def result_lines(self, bid: str) -> tuple[int, Any]:
        with self._lock:
            batch = self.batches.get(bid)
            if batch is None:
                return 404, _err("not_found_error", f"no batch {bid!r}")
            if batch["processing_status"] != "ended":
                return 400, _err("invalid_request_error", f"batch {bid} has not ended")
            return 200, "".join(json.dumps(r) + "\n" for r in self.results[bid]).encode()

    def _end(self, batch: dict[str, Any]) -> None:
        canceled = batch["processing_status"] == "canceling"
        limit = 0 if canceled else batch["_expire_after"]
        counts = batch["request_counts"]
        out: list[dict[str, Any]] = []
        for n, req in enumerate(self.requests[batch["id"]]):
            result: dict[str, Any]
            if limit is not None and n >= limit:
                result = {"type": "canceled" if canceled else "expired"}
            else:
                got = self.answer(req["params"]) if self.answer is not None else None
                if isinstance(got, tuple):
                    kind, text = got
                    result = {"type": "errored", "error": _err(kind, text)}
                else:
                    result = {"type": "succeeded", "message": got or _default(req["params"])}
            counts[result["type"]] += 1
            out.append({"custom_id": req["custom_id"], "result": result})
        counts["processing"] = 0
        self.results[batch["id"]] = out
        batch["processing_status"] = "ended"
        batch["ended_at"] = _now()
        batch["results_url"] = f"{self.base_url}{_PATH}/{batch['id']}/results"


def _default(params: dict[str, Any]) -> dict[str, Any]:
    tools = params.get("tools") or [{}]
    name = tools[0].get("name", "judgment")
    schema = tools[0].get("input_schema") or {}
    return tool_use(fake_reply_for_schema(schema) if schema else {}, name=name)


def _err(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _public(batch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in batch.items() if not k.startswith("_")}


class _Handler(BaseHTTPRequestHandler):
    state: AnthropicBatchServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def _send(self, status: int, body: Any) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _refused(self) -> bool:
        if not self.headers.get("x-api-key"):
            self._send(401, _err("authentication_error", "x-api-key header is required"))
            return True
        if not self.headers.get("anthropic-version"):
            self._send(400, _err("invalid_request_error", "anthropic-version header is required"))
            return True
        return False

    def do_GET(self) -> None:  # noqa: N802
        if self._refused():
            return
        s = self.state
        url = urlsplit(self.path)
        parts = url.path.strip("/").split("/")
        if parts[:3] != ["v1", "messages", "batches"]:
            self._send(404, _err("not_found_error", f"no route {self.path}"))
        elif len(parts) == 3:
            self._send(*s.list(parse_qs(url.query)))
        elif len(parts) == 4:
            self._send(*s.retrieve(parts[3]))
        elif len(parts) == 5 and parts[4] == "results":
            self._send(*s.result_lines(parts[3]))
        else:
            self._send(404, _err("not_found_error", f"no route {self.path}"))

    def do_POST(self) -> None:  # noqa: N802
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self._refused():
            return
        s = self.state
        parts = urlsplit(self.path).path.strip("/").split("/")
        if parts == ["v1", "messages", "batches"]:
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            if s.drop_create_reply or s.hang_create:
                hang, s.drop_create_reply, s.hang_create = s.hang_create, False, False
                s.create(body, len(raw))
                if hang:
                    s.release.wait(60)
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            self._send(*s.create(body, len(raw)))
        elif parts[:3] == ["v1", "messages", "batches"] and len(parts) == 5:
            self._send(*s.cancel(parts[3]))
        else:
            self._send(404, _err("not_found_error", f"no route {self.path}"))
