"""A real OpenAI Batch API server on 127.0.0.1: files, batches, status transitions, results.

Endpoints, as documented by OpenAI:

- ``POST /v1/files`` (multipart: ``purpose=batch``, ``file``) -> a file object;
- ``POST /v1/batches`` (``input_file_id``, ``endpoint``, ``completion_window``,
  ``metadata``) -> a batch object in ``validating``;
- ``GET /v1/batches/{id}`` -> the batch; each poll moves it one step:
  validating -> in_progress -> finalizing -> completed (or expired / failed);
- ``GET /v1/batches?limit=&after=`` -> ``{"object": "list", "data", "first_id",
  "last_id", "has_more"}``, newest first;
- ``GET /v1/files/{id}/content`` -> the file's bytes;
- ``POST /v1/batches/{id}/cancel``.

Validation (when a batch leaves ``validating``): every line is JSON with a unique
``custom_id``, ``method`` POST and the batch's ``url``, one model per file, at
most 50,000 lines and 200 MB; otherwise the batch ``failed`` with ``errors``.
Output lines are ``{"id", "custom_id", "response": {"status_code", "request_id",
"body"}, "error": null}``; failed requests go to the error file with their
status and an error body; an expired batch answers ``expire_after`` requests and
writes the rest to the error file with ``{"code": "batch_expired"}``.

Scripting: ``answer(body) -> dict | (status, message)`` decides each request
(default: a valid object for its schema); ``tamper(batch, rows)`` rewrites a
batch's output rows (to forge or repeat results); ``hold`` keeps batches in_progress;
``expire_after`` / ``fail_validation`` apply to the next batch; ``drop_create_reply``
creates the next batch but drops the connection instead of answering, ``hang_create``
creates it and never answers (until ``release`` is set). The log:
``created`` (batch ids in creation order), ``uploaded`` (a Counter of custom_ids
over all uploaded files), ``batched`` (custom_ids per created batch), ``polls``.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from rubricjudge._judges._fake import fake_reply_for_schema
from tests.support.chat_server import Reply, _completion, schema_of
from tests.support.local_server import LocalServer

__all__ = ["BatchServer"]

MAX_LINES = 50_000
MAX_BYTES = 200 * 1024 * 1024


class BatchServer(LocalServer):
    """The server: script it, read its log, ``base_url`` ends in ``/v1``."""

    def __init__(self) -> None:
        self.files: dict[str, dict[str, Any]] = {}
        self.contents: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.created: list[str] = []
        self.uploaded: Counter[str] = Counter()
        self.batched: dict[str, list[str]] = {}
        self.polls = 0
        self.answer: Callable[[dict[str, Any]], Any] | None = None
        # (batch, output rows) -> the rows written: a provider gone wrong, or a forger
        self.tamper: Callable[[dict[str, Any], list[dict[str, Any]]], list[dict[str, Any]]] | None
        self.tamper = None
        self.hold = threading.Event()  # set: batches stay in_progress
        self.expire_after: int | None = None
        self.fail_validation = False
        self.drop_create_reply = False
        self.hang_create = False
        self.release = threading.Event()  # ends a hung create (the client is long gone)
        self._ids = itertools.count(1)
        self._lock = threading.RLock()

    # -- lifecycle -------------------------------------------------------------------
    path = "/v1"

    def request_handler(self) -> type[BaseHTTPRequestHandler]:
        """The handler class, bound to this server."""
        owner = self

        class Handler(_Handler):
            server_state = owner

        return Handler

    # -- the API ---------------------------------------------------------------------
    def _new_id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids):04d}"

    def upload(self, purpose: str, filename: str, content: bytes) -> tuple[int, Any]:
        if purpose != "batch":
            return 400, _err(f"purpose {purpose!r} is not 'batch'")
        with self._lock:
            fid = self._new_id("file")
            self.contents[fid] = content
            self.files[fid] = {
                "id": fid,
                "object": "file",
                "bytes": len(content),
                "created_at": int(time.time()),
                "filename": filename,
                "purpose": purpose,
            }
            for raw in content.splitlines():
                try:
                    self.uploaded[json.loads(raw)["custom_id"]] += 1
                except (ValueError, KeyError, TypeError):
                    pass
            return 200, self.files[fid]

    def create(self, body: Any) -> tuple[int, Any]:
        if not isinstance(body, dict):
            return 400, _err("body must be a JSON object")
        fid = body.get("input_file_id")
        if fid not in self.files or self.files[fid]["purpose"] != "batch":
            return 400, _err(f"input_file_id {fid!r} is not a batch file")
        if body.get("endpoint") != "/v1/chat/completions":
            return 400, _err(f"endpoint {body.get('endpoint')!r} not supported here")
        if body.get("completion_window") != "24h":
            return 400, _err("completion_window must be '24h'")
        metadata = body.get("metadata") or {}
        if not isinstance(metadata, dict) or len(metadata) > 16:
            return 400, _err("metadata: at most 16 key-value pairs")
        with self._lock:
            bid = self._new_id("batch")
            self.batches[bid] = {
                "id": bid,
                "object": "batch",
                "endpoint": body["endpoint"],
                "errors": None,
                "input_file_id": fid,
                "completion_window": "24h",
                "status": "validating",
                "output_file_id": None,
                "error_file_id": None,
                "created_at": int(time.time()),
                "request_counts": {"total": 0, "completed": 0, "failed": 0},
                "metadata": metadata,
                "_expire_after": self.expire_after,
                "_fail": self.fail_validation,
            }
            self.expire_after = None
            self.fail_validation = False
            self.created.append(bid)
            ids = [json.loads(r)["custom_id"] for r in self.contents[fid].splitlines() if r.strip()]
            self.batched[bid] = ids
            return 200, _public(self.batches[bid])

    def retrieve(self, bid: str) -> tuple[int, Any]:
        with self._lock:
            self.polls += 1
            batch = self.batches.get(bid)
            if batch is None:
                return 404, _err(f"no batch {bid!r}")
            self._step(batch)
            return 200, _public(batch)

    def list(self, query: dict[str, list[str]]) -> tuple[int, Any]:
        limit = int((query.get("limit") or ["20"])[0])
        after = (query.get("after") or [None])[0]
        with self._lock:
            newest = list(reversed(self.created))
            if after in newest:
                newest = newest[newest.index(after) + 1 :]
            page = newest[:limit]
            data = [_public(self.batches[b]) for b in page]
            return 200, {
                "object": "list",
                "data": data,
                "first_id": page[0] if page else None,
                "last_id": page[-1] if page else None,
                "has_more": len(newest) > limit,
            }

    def cancel(self, bid: str) -> tuple[int, Any]:
        with self._lock:
            batch = self.batches.get(bid)
            if batch is None:
                return 404, _err(f"no batch {bid!r}")
            if batch["status"] in ("validating", "in_progress"):
                batch["status"] = "cancelling"
            return 200, _public(batch)

    def content(self, fid: str) -> tuple[int, bytes]:
        with self._lock:
            if fid not in self.contents:
                return 404, json.dumps(_err(f"no file {fid!r}")).encode()
            return 200, self.contents[fid]

    # -- the batch's life ------------------------------------------------------------
    def _step(self, batch: dict[str, Any]) -> None:
        status = batch["status"]
        if status == "validating":
            problem = "scripted validation failure" if batch["_fail"] else self._validate(batch)
            if problem:
                batch["status"] = "failed"
                batch["errors"] = {
                    "object": "list",
                    "data": [{"code": "invalid_request", "message": problem, "line": None}],
                }
            else:
                batch["status"] = "in_progress"
                lines = self.contents[batch["input_file_id"]].splitlines()
                batch["request_counts"]["total"] = len(lines)
        elif status == "in_progress" and not self.hold.is_set():
            batch["status"] = "finalizing"
        elif status == "finalizing":
            self._finish(batch, "completed")
        elif status == "cancelling":
            self._finish(batch, "cancelled")

    def _validate(self, batch: dict[str, Any]) -> str | None:
        content = self.contents[batch["input_file_id"]]
        if len(content) > MAX_BYTES:
            return "the file is larger than 200 MB"
        lines = content.splitlines()
        if len(lines) > MAX_LINES:
            return f"the file has {len(lines)} requests; at most {MAX_LINES}"
        seen: set[str] = set()
        models: set[str] = set()
        for n, raw in enumerate(lines, 1):
            try:
                obj = json.loads(raw)
            except ValueError:
                return f"line {n} is not JSON"
            cid = obj.get("custom_id")
            if not isinstance(cid, str) or cid in seen:
                return f"line {n}: custom_id {cid!r} missing or repeated"
            seen.add(cid)
            if obj.get("method") != "POST" or obj.get("url") != batch["endpoint"]:
                return f"line {n}: method/url must be POST {batch['endpoint']}"
            models.add(str((obj.get("body") or {}).get("model")))
        if len(models) > 1:
            return f"one model per file; this one has {sorted(models)}"
        return None

    def _finish(self, batch: dict[str, Any], status: str) -> None:
        lines = [json.loads(r) for r in self.contents[batch["input_file_id"]].splitlines()]
        limit = batch["_expire_after"]
        if status == "completed" and limit is not None:
            status = "expired"
        if status == "cancelled":
            limit = 0
        out: list[dict[str, Any]] = []
        errs: list[dict[str, Any]] = []
        for n, line in enumerate(lines):
            rid = f"batch_req_{batch['id']}_{n}"
            if limit is not None and n >= limit:
                code = "batch_expired" if status == "expired" else "batch_cancelled"
                errs.append(
                    {
                        "id": rid,
                        "custom_id": line["custom_id"],
                        "response": None,
                        "error": {"code": code, "message": "not executed in time"},
                    }
                )
                continue
            got = self.answer(line["body"]) if self.answer is not None else None
            if isinstance(got, tuple):
                code, message = got
                body = _err(message)
                errs.append(_result(rid, line["custom_id"], code, body))
                continue
            if got is None:
                schema = schema_of(line["body"])
                got = fake_reply_for_schema(schema) if schema else {}
            body = _completion(Reply.json(got), line["body"])
            out.append(_result(rid, line["custom_id"], 200, body))
        if self.tamper is not None:
            out = self.tamper(batch, out)
        for key, rows in (("output_file_id", out), ("error_file_id", errs)):
            if rows:
                data = "".join(json.dumps(r) + "\n" for r in rows).encode()
                fid = self._new_id("file")
                self.contents[fid] = data
                self.files[fid] = {"id": fid, "purpose": "batch_output", "bytes": len(data)}
                batch[key] = fid
        counts = batch["request_counts"]
        counts["completed"] = len(out)
        counts["failed"] = len(errs)
        batch["status"] = status


def _result(rid: str, cid: str, status: int, body: Any) -> dict[str, Any]:
    return {
        "id": rid,
        "custom_id": cid,
        "response": {"status_code": status, "request_id": rid, "body": body},
        "error": None,
    }


def _err(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": None}}


def _public(batch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in batch.items() if not k.startswith("_")}


class _Handler(BaseHTTPRequestHandler):
    server_state: BatchServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def _send(self, status: int, body: Any) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        ctype = "application/octet-stream" if isinstance(body, bytes) else "application/json"
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self) -> None:  # noqa: N802
        s = self.server_state
        url = urlsplit(self.path)
        parts = url.path.strip("/").split("/")
        if parts[:2] == ["v1", "batches"] and len(parts) == 2:
            self._send(*s.list(parse_qs(url.query)))
        elif parts[:2] == ["v1", "batches"] and len(parts) == 3:
            self._send(*s.retrieve(parts[2]))
        elif parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[3] == "content":
            self._send(*s.content(parts[2]))
        else:
            self._send(404, _err(f"no route {self.path}"))

    def do_POST(self) -> None:  # noqa: N802
        s = self.server_state
        raw = self._body()
        parts = urlsplit(self.path).path.strip("/").split("/")
        if parts == ["v1", "files"]:
            fields = _multipart(self.headers.get("Content-Type", ""), raw)
            purpose = fields.get("purpose", (None, b""))[1].decode()
            filename, content = fields.get("file", ("", b""))
            self._send(*s.upload(purpose, filename or "", content))
        elif parts == ["v1", "batches"]:
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            if s.drop_create_reply or s.hang_create:
                hang, s.drop_create_reply, s.hang_create = s.hang_create, False, False
                s.create(body)
                if hang:
                    s.release.wait(60)
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            self._send(*s.create(body))
        elif parts[:2] == ["v1", "batches"] and len(parts) == 4 and parts[3] == "cancel":
            self._send(*s.cancel(parts[2]))
        else:
            self._send(404, _err(f"no route {self.path}"))


def _multipart(ctype: str, raw: bytes) -> dict[str, tuple[str | None, bytes]]:
    """The fields of a multipart/form-data body: name -> (filename, bytes)."""
    head = f"Content-Type: {ctype}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
    out: dict[str, tuple[str | None, bytes]] = {}
    for part in msg.iter_parts():  # type: ignore[attr-defined]
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        out[str(name)] = (part.get_filename(), payload)
    return out
