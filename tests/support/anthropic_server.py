"""A minimal Anthropic Messages API server on 127.0.0.1, scripted per test.

Usage::

    with AnthropicServer() as server:
        server.script(tool_use({"verdict": "MET", "reason": "ok"}), error(429, retry_after=1))
        judge = get_judge("anthropic/claude-x", base_url=server.base_url, api_key="k")
        ...
        server.requests[0].json["tool_choice"]; server.requests[0].headers["authorization"]

Each ``POST /v1/messages`` takes the next scripted reply (a message body for a 200,
or an :class:`Error`); with the queue empty it answers a tool call of the forced
tool with ``{}``.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.local_server import LocalServer

__all__ = ["AnthropicServer", "Error", "Recorded", "message", "tool_use"]


@dataclass
class Error:
    """An HTTP error with an Anthropic-style body."""

    status: int
    kind: str = "api_error"
    text: str = "error"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Recorded:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    json: Any


def message(
    content: list[dict[str, Any]],
    *,
    stop_reason: str = "end_turn",
    usage: dict[str, int] | None = None,
    model: str = "claude-test",
) -> dict[str, Any]:
    """A Messages API response body."""
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage or {"input_tokens": 10, "output_tokens": 5},
    }


def tool_use(
    data: dict[str, Any],
    *,
    name: str = "judgment",
    thinking: str | None = None,
    usage: dict[str, int] | None = None,
) -> dict[str, Any]:
    """A response calling tool ``name`` with ``data``, optionally after a thinking block."""
    blocks: list[dict[str, Any]] = []
    if thinking is not None:
        blocks.append({"type": "thinking", "thinking": thinking, "signature": "sig"})
    blocks.append({"type": "tool_use", "id": "toolu_1", "name": name, "input": data})
    return message(blocks, stop_reason="tool_use", usage=usage)


class AnthropicServer(LocalServer):
    """The server: ``script()`` replies, read ``requests``; ``base_url`` has no ``/v1``."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._queue: list[dict[str, Any] | Error] = []
        self._lock = threading.Lock()

    poll_interval = 0.05

    def request_handler(self) -> type[BaseHTTPRequestHandler]:
        """The handler class, bound to this server."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                size = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(size) or b"null")
                headers = {k.lower(): v for k, v in self.headers.items()}
                with server._lock:
                    server.requests.append(Recorded(self.path, headers, body))
                    reply = server._queue.pop(0) if server._queue else None
                if reply is None:
                    name = (body.get("tool_choice") or {}).get("name", "judgment")
                    reply = tool_use({}, name=name)
                if isinstance(reply, Error):
                    payload = {
                        "type": "error",
                        "error": {"type": reply.kind, "message": reply.text},
                    }
                    self._send(reply.status, payload, reply.headers)
                else:
                    self._send(200, reply, {})

            def _send(self, status: int, payload: Any, headers: dict[str, str]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def script(self, *replies: dict[str, Any] | Error) -> AnthropicServer:
        """Queue replies, answered in order."""
        with self._lock:
            self._queue.extend(replies)
        return self
