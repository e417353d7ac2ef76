"""A TCP server on 127.0.0.1 that answers HTTP with whatever bytes a test scripts.

For what ``chat_server`` cannot show: keep-alive and idle closes, chunked and
compressed replies, stalls mid-body, TLS, and proxies. Runs on the test's own
event loop::

    async def answer(conn: RawConnection) -> None:
        request = await conn.read_request()
        await conn.send(ok_json({"choices": ...}))

    async with RawServer(answer) as server:
        ...server.url, server.connections, server.requests
"""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RawConnection", "RawRequest", "RawServer", "completion", "ok_json"]


@dataclass
class RawRequest:
    """One request as it arrived."""

    line: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class RawConnection:
    """One accepted connection, with helpers to read requests and write raw bytes."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    server: RawServer
    requests: list[RawRequest] = field(default_factory=list)

    async def read_head(self) -> tuple[str, dict[str, str]] | None:
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return None
        line, *rest = head.decode("latin-1").split("\r\n")
        headers = {}
        for h in rest:
            if h:
                name, _, value = h.partition(":")
                headers[name.strip().lower()] = value.strip()
        return line, headers

    async def read_request(self) -> RawRequest | None:
        """The next request on this connection, or None when the client closed it."""
        got = await self.read_head()
        if got is None:
            return None
        line, headers = got
        body = await self.reader.readexactly(int(headers.get("content-length", "0")))
        request = RawRequest(line, headers, body)
        self.requests.append(request)
        self.server.requests.append(request)
        return request

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    def close(self) -> None:
        self.writer.close()


Handler = Callable[[RawConnection], Awaitable[None]]


class RawServer:
    """Runs ``handler`` for every connection; ``ssl`` makes it an HTTPS server."""

    def __init__(self, handler: Handler, *, ssl_context: ssl.SSLContext | None = None) -> None:
        self.handler = handler
        self.ssl = ssl_context
        self.connections = 0
        self.requests: list[RawRequest] = []
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        scheme = "https" if self.ssl else "http"
        return f"{scheme}://127.0.0.1:{self.port}/v1"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self.handler(RawConnection(reader, writer, self))
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            writer.close()
            self._tasks.discard(task)

    async def __aenter__(self) -> RawServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.ssl)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()


def completion(data: dict[str, Any], model: str = "m") -> dict[str, Any]:
    """A chat completion whose assistant content is ``data`` as JSON."""
    return {
        "id": "c",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": json.dumps(data)}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }


def ok_json(obj: Any, *, extra: str = "") -> bytes:
    """A 200 with ``obj`` as a JSON body and Content-Length."""
    body = json.dumps(obj).encode()
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{extra}"
    return f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body
