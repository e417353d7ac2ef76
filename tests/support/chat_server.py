"""A real OpenAI chat-completions server on 127.0.0.1, scripted per test.

Usage::

    server = ChatServer().start()          # or the ``chat_server`` fixture
    server.script(Reply.rate_limited(0.01), Reply.json({"verdict": "MET"}))
    server.handler = lambda body: Reply.json({...})   # used when the queue is empty
    client = AsyncOpenAI(base_url=server.base_url, api_key="x")
    ...
    server.requests[0].headers["authorization"]; server.requests[0].json["response_format"]
    server.max_in_flight

Each request takes the next scripted reply; with the queue empty it asks ``handler``
(``(request_json) -> Reply | dict | str | None``); failing that it answers a JSON
object valid for the request's schema (``response_format``), with enums taking
their first value (a verdict schema answers ``MET``). Replies can delay, fail with
any status/body/headers, hang, drop the connection, send malformed or truncated
bodies, and report usage and a reasoning trace.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rubricjudge._judges._fake import fake_reply_for_schema
from tests.support.local_server import LocalServer

__all__ = ["ChatServer", "RecordedRequest", "Reply", "schema_of"]


@dataclass
class Reply:
    """One scripted answer. Build with the classmethods; fields combine freely."""

    content: str | None = None
    status: int = 200
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    hang: bool = False
    drop: bool = False
    truncate_body: bool = False
    usage: tuple[int, int] | None = (10, 5)
    reasoning: str | None = None
    refusal: str | None = None
    finish_reason: str = "stop"
    model: str | None = None
    logprobs: list[dict[str, Any]] | None = None
    usage_json: Any = None  # sent as the "usage" object instead of ``usage`` (bad usage)

    @classmethod
    def json(cls, obj: Any, **kw: Any) -> Reply:
        """Assistant content that is ``obj`` as JSON text."""
        return cls(content=json.dumps(obj), **kw)

    @classmethod
    def answer(cls, key: str, chosen: str, probs: Mapping[str, float], **kw: Any) -> Reply:
        """``{key: chosen}`` as a model writes it, token by token, with ``top_logprobs``.

        The value's first token carries the alternatives ``probs`` (value -> probability),
        as an OpenAI-compatible server reports them when asked for ``logprobs``.
        """
        import math

        head = '{"' + key + '": "'
        tokens = [
            {"token": head, "logprob": 0.0, "top_logprobs": [{"token": head, "logprob": 0.0}]}
        ]
        alts = [{"token": v, "logprob": math.log(p)} for v, p in probs.items() if p > 0]
        tokens.append({"token": chosen, "logprob": math.log(probs[chosen]), "top_logprobs": alts})
        tokens.append(
            {"token": '"}', "logprob": 0.0, "top_logprobs": [{"token": '"}', "logprob": 0.0}]}
        )
        return cls(content=head + chosen + '"}', logprobs=tokens, **kw)

    @classmethod
    def text(cls, text: str, **kw: Any) -> Reply:
        """Assistant content exactly ``text`` (fenced, chatty, malformed...)."""
        return cls(content=text, **kw)

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "error",
        headers: Mapping[str, str] | None = None,
        **kw: Any,
    ) -> Reply:
        """An HTTP error with an OpenAI-style error body."""
        body = json.dumps({"error": {"message": message, "type": "error", "code": status}})
        return cls(status=status, body=body.encode(), headers=dict(headers or {}), **kw)

    @classmethod
    def rate_limited(cls, retry_after: float | str | None = None, **kw: Any) -> Reply:
        """A 429, with ``Retry-After`` (seconds or an HTTP date) when given."""
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        return cls.error(429, "rate limit exceeded", headers, **kw)

    @classmethod
    def server_error(cls, status: int = 500, **kw: Any) -> Reply:
        """A 5xx."""
        return cls.error(status, "internal server error", **kw)

    @classmethod
    def schema_unsupported(cls, **kw: Any) -> Reply:
        """A 400 rejecting ``response_format`` json_schema, as llama.cpp's server does."""
        return cls.error(
            400, "response_format type 'json_schema' is not supported; use json_object", **kw
        )

    @classmethod
    def hang_up(cls, **kw: Any) -> Reply:
        """Never answer (until the server stops): the client must time out."""
        return cls(hang=True, **kw)

    @classmethod
    def dropped(cls, **kw: Any) -> Reply:
        """Close the connection without any response."""
        return cls(drop=True, **kw)

    @classmethod
    def malformed_body(cls, **kw: Any) -> Reply:
        """A 200 whose HTTP body is not JSON."""
        return cls(body=b'{"id": "x", "choices": [ this is not json', **kw)

    @classmethod
    def truncated_body(cls, **kw: Any) -> Reply:
        """A 200 whose body stops half-way (Content-Length promises more), then closes."""
        return cls(content='{"verdict": "MET"}', truncate_body=True, **kw)


@dataclass
class RecordedRequest:
    """What the server received."""

    method: str
    path: str
    headers: dict[str, str]
    json: Any


def schema_of(body: Any) -> Mapping[str, Any] | None:
    """The JSON schema a chat request asks for, in either response_format style."""
    if not isinstance(body, Mapping):
        return None
    rf = body.get("response_format")
    if not isinstance(rf, Mapping):
        return None
    if rf.get("type") == "json_schema":
        js = rf.get("json_schema") or {}
        schema = js.get("schema") if isinstance(js, Mapping) else None
        return schema if isinstance(schema, Mapping) else None
    schema = rf.get("schema")
    return schema if isinstance(schema, Mapping) else None


def _completion(reply: Reply, body: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.reasoning is not None:
        message["reasoning_content"] = reply.reasoning
    if reply.refusal is not None:
        message["refusal"] = reply.refusal
        message["content"] = None
    model = reply.model or (body.get("model") if isinstance(body, Mapping) else None) or "test"
    out: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
    }
    if reply.logprobs is not None:
        out["choices"][0]["logprobs"] = {"content": reply.logprobs}
    if reply.usage is not None:
        p, c = reply.usage
        out["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    if reply.usage_json is not None:
        out["usage"] = reply.usage_json
    return out


class ChatServer(LocalServer):
    """The server: ``script()`` replies, read ``requests``, ``base_url`` ends in ``/v1``."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.handler: Callable[[Any], Reply | Mapping[str, Any] | str | None] | None = None
        self.default: Mapping[str, Any] | None = None
        self.models: list[str] = ["test"]
        self.in_flight = 0
        self.max_in_flight = 0
        self._queue: list[Reply] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()

    # -- scripting ---------------------------------------------------------
    def script(self, *replies: Reply | Mapping[str, Any] | str) -> ChatServer:
        """Queue replies, answered in order before ``handler``/the default."""
        with self._lock:
            self._queue.extend(self._coerce(r) for r in replies)
        return self

    def reset(self) -> None:
        """Forget recorded requests, the queue, the handler and the in-flight peak."""
        with self._lock:
            self.requests.clear()
            self._queue.clear()
            self.handler = None
            self.default = None
            self.max_in_flight = 0

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The recorded ``POST .../chat/completions`` requests."""
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    @staticmethod
    def _coerce(reply: Reply | Mapping[str, Any] | str) -> Reply:
        if isinstance(reply, Reply):
            return reply
        if isinstance(reply, str):
            return Reply.text(reply)
        return Reply.json(dict(reply))

    def _next_reply(self, body: Any) -> Reply:
        with self._lock:
            queued = self._queue.pop(0) if self._queue else None
        if queued is not None:
            return queued
        if self.handler is not None:
            got = self.handler(body)
            if got is not None:
                return self._coerce(got)
        if self.default is not None:
            return Reply.json(dict(self.default))
        schema = schema_of(body)
        return Reply.json(fake_reply_for_schema(schema) if schema else {})

    # -- lifecycle -----------------------------------------------------------
    path = "/v1"

    def request_handler(self) -> type[BaseHTTPRequestHandler]:
        """The handler class, bound to this server."""
        server = self

        class Handler(_Handler):
            owner = server

        return Handler

    def stopping(self) -> None:
        """Release hanging requests."""
        self._stop.set()


class _Server(ThreadingHTTPServer):
    # 64 clients connecting at once overflow socketserver's accept queue of 5 (the
    # kernel then resets connections); 1,280 requests/s with 50 ms replies is served
    # by these threads at about 0.25 ms of CPU each (see benchmarks/batch_throughput.py)
    request_queue_size = 256
    daemon_threads = True


class _Handler(BaseHTTPRequestHandler):
    owner: ChatServer
    protocol_version = "HTTP/1.1"
    # headers and body go out in separate writes: with Nagle's algorithm and delayed
    # ACKs every keep-alive reply would wait ~40 ms (TCP_NODELAY on each connection)
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # quiet

    def _send(self, status: int, body: bytes, headers: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _record(self, body: Any) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        with self.owner._lock:
            self.owner.requests.append(RecordedRequest(self.command, self.path, headers, body))

    def do_GET(self) -> None:  # noqa: N802
        self._record(None)
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": m, "object": "model", "owned_by": "test"} for m in self.owner.models]
            self._send(200, json.dumps({"object": "list", "data": data}).encode())
        else:
            self._send(404, b'{"error": {"message": "not found"}}')

    def do_POST(self) -> None:  # noqa: N802
        owner = self.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        self._record(body)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, b'{"error": {"message": "not found"}}')
            return
        with owner._lock:
            owner.in_flight += 1
            owner.max_in_flight = max(owner.max_in_flight, owner.in_flight)
        try:
            self._answer(owner._next_reply(body), body)
        finally:
            with owner._lock:
                owner.in_flight -= 1

    def _answer(self, reply: Reply, body: Any) -> None:
        if reply.delay:
            self.owner._stop.wait(reply.delay)
        if reply.hang:
            self.owner._stop.wait(60)
            self.close_connection = True
            return
        if reply.drop:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        data = reply.body
        if data is None:
            data = json.dumps(_completion(reply, body)).encode()
        if reply.truncate_body:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        self._send(reply.status, data, reply.headers)


ChatServer.server_class = _Server  # defined after ChatServer, which its handler refers to
