"""HTTP/1.1 on one connection: the request's bytes out, the response parsed as it arrives.

:class:`Connection` is an asyncio protocol carrying one exchange at a time over a
keep-alive connection; :class:`ResponseParser` is the incremental response parser
behind it (status line, headers, then a body framed by ``Content-Length``, by
chunks, or by the connection closing; informational 1xx responses are skipped).
The pool, TLS, proxies and timeouts are ``_http``'s.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Mapping

__all__ = ["Connection", "ProtocolError", "ResponseParser", "request_head"]

_MAX_HEAD = 64 * 1024  # a status line plus headers longer than this is not a reply we want
_MAX_BODY = 256 * 1024 * 1024


class ProtocolError(Exception):
    """The peer broke HTTP/1.1 (or closed the connection before the reply was whole)."""

    def __init__(self, message: str, *, started: bool = True) -> None:
        super().__init__(message)
        self.started = started  # False: no byte of a reply had arrived


def _token_ok(text: str) -> bool:
    return bool(text) and not any(c in text for c in "\r\n\0:") and text.strip() == text


def request_head(
    method: str, target: str, host: str, headers: Mapping[str, str], body_length: int | None
) -> bytes:
    """The request line and headers of one request, up to and with the blank line.

    ``body_length`` None sends no ``Content-Length`` (a ``CONNECT`` has no body).

    Raises:
        ValueError: a header name or value that could smuggle a line break.
    """
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}"]
    for name, value in headers.items():
        if not _token_ok(name) or any(c in value for c in "\r\n\0"):
            raise ValueError(f"HTTP header {name!r}: {value!r} holds a line break or NUL")
        lines.append(f"{name}: {value}")
    if body_length is not None:
        lines.append(f"Content-Length: {body_length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class ResponseParser:
    """Feed bytes in; ``done`` once one whole response is in ``status/headers/body``."""

    def __init__(self, *, no_body: bool = False) -> None:
        self.status = 0
        self.reason = ""
        self.headers: dict[str, str] = {}
        self.body = b""
        self.done = False
        self.keep_alive = True
        self.started = False
        self._buf = bytearray()
        self._no_body = no_body  # a reply to CONNECT: the head is all there is
        self._mode = "head"  # head, length, chunk-size, chunk-data, trailers, close
        self._left = 0
        self._parts: list[bytes] = []
        self._size = 0
        self._scan = 0

    def feed(self, data: bytes) -> None:
        """Take more bytes of the response.

        Raises:
            ProtocolError: the bytes are not HTTP/1.1.
        """
        if data:
            self.started = True
            self._buf += data
        while not self.done and self._step():
            pass

    def eof(self) -> None:
        """The peer closed the connection.

        Raises:
            ProtocolError: the response was not complete.
        """
        if self.done:
            return
        if self._mode == "close":
            body = bytes(self._buf)
            self._buf.clear()
            self._finish(body)
            return
        raise ProtocolError(
            "the server closed the connection before the whole reply arrived"
            if self.started
            else "the server closed the connection without replying",
            started=self.started,
        )

    # -- the states --------------------------------------------------------------
    def _step(self) -> bool:
        mode = self._mode
        if mode == "head":
            return self._head()
        if mode == "length":
            if len(self._buf) < self._left:
                return False
            body = bytes(self._buf[: self._left])
            del self._buf[: self._left]
            self._finish(body)
            return False
        if mode == "chunk-size":
            line = self._line()
            if line is None:
                return False
            size_text = line.split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise ProtocolError(f"bad chunk size {size_text[:20]!r}") from None
            if size < 0:
                raise ProtocolError(f"bad chunk size {size_text[:20]!r}")
            self._left = size
            self._mode = "chunk-data" if size else "trailers"
            return True
        if mode == "chunk-data":
            if len(self._buf) < self._left + 2:
                return False
            if self._buf[self._left : self._left + 2] != b"\r\n":
                raise ProtocolError("a chunk does not end with CRLF")
            self._parts.append(bytes(self._buf[: self._left]))
            self._size += self._left
            if self._size > _MAX_BODY:
                raise ProtocolError("the reply is larger than 256 MiB")
            del self._buf[: self._left + 2]
            self._mode = "chunk-size"
            return True
        if mode == "trailers":
            line = self._line()
            if line is None:
                return False
            if not line:
                self._finish(b"".join(self._parts))
            return True
        # "close": everything until the peer closes is the body
        if len(self._buf) > _MAX_BODY:
            raise ProtocolError("the reply is larger than 256 MiB")
        return False

    def _line(self) -> bytes | None:
        end = self._buf.find(b"\r\n")
        if end < 0:
            if len(self._buf) > _MAX_HEAD:
                raise ProtocolError("a line of the reply is too long")
            return None
        line = bytes(self._buf[:end])
        del self._buf[: end + 2]
        return line

    def _head(self) -> bool:
        end = self._buf.find(b"\r\n\r\n", self._scan)
        if end < 0:
            if len(self._buf) > _MAX_HEAD:
                raise ProtocolError("the reply's headers are larger than 64 KiB")
            self._scan = max(0, len(self._buf) - 3)
            return False
        head = bytes(self._buf[:end]).decode("latin-1")
        del self._buf[: end + 4]
        self._scan = 0
        status_line, _, rest = head.partition("\r\n")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise ProtocolError(f"not an HTTP/1.x status line: {status_line[:80]!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        for line in rest.split("\r\n") if rest else ():
            name, sep, value = line.partition(":")
            if not sep or not name or name != name.strip():
                raise ProtocolError(f"bad header line {line[:80]!r}")
            key = name.lower()
            value = value.strip()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        if 100 <= status < 200 and status != 101:
            return True  # informational (103 Early Hints ...): the real reply follows
        self.status, self.reason, self.headers = status, parts[2] if len(parts) > 2 else "", headers
        connection = headers.get("connection", "").lower()
        if parts[0] == "HTTP/1.0":
            self.keep_alive = "keep-alive" in connection
        else:
            self.keep_alive = "close" not in connection
        if self._no_body or status in (204, 304):
            self._finish(b"")
            return False
        if "chunked" in headers.get("transfer-encoding", "").lower():
            self._mode = "chunk-size"
            return True
        length = headers.get("content-length")
        if length is not None:
            try:
                n = int(length.split(",")[0])
            except ValueError:
                raise ProtocolError(f"bad Content-Length {length!r}") from None
            if n < 0 or n > _MAX_BODY:
                raise ProtocolError(f"Content-Length {n} is out of range")
            self._left = n
            self._mode = "length"
            return True
        self._mode = "close"
        self.keep_alive = False
        return True

    def _finish(self, body: bytes) -> None:
        coding = self.headers.get("content-encoding", "identity").lower()
        if body and coding in ("gzip", "x-gzip", "deflate"):
            try:
                body = zlib.decompress(body, 47)  # 47: zlib or gzip, detected from the header
            except zlib.error as e:
                raise ProtocolError(f"the {coding} reply does not decompress: {e}") from None
        elif coding not in ("identity", ""):
            raise ProtocolError(f"the reply uses Content-Encoding {coding!r}, which we did not ask")
        self.body = body
        self.done = True
        if self._buf:
            self.keep_alive = False  # bytes after the reply: nothing we can trust on this socket


class Connection(asyncio.Protocol):
    """One HTTP/1.1 connection: :meth:`exchange` sends a request and awaits its reply."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.exchanges = 0
        self._parser: ResponseParser | None = None
        self._waiter: asyncio.Future[ResponseParser] | None = None

    # -- asyncio.Protocol ----------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # noqa: D102
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:  # noqa: D102
        parser = self._parser
        if parser is None or parser.done:  # bytes nobody asked for: the socket is out of step
            self.close()
            return
        try:
            parser.feed(data)
        except ProtocolError as e:
            self._fail(e)
            self.close()
            return
        if parser.done:
            self._resolve(parser)

    def eof_received(self) -> bool:  # noqa: D102
        self._on_close(None)
        return False  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: D102
        self.closed = True
        self._on_close(exc)

    # -- use -----------------------------------------------------------------------
    @property
    def reusable(self) -> bool:
        """Idle and open: fit for the next request."""
        t = self.transport
        return not self.closed and self._waiter is None and t is not None and not t.is_closing()

    async def exchange(self, data: bytes, *, tunnel: bool = False) -> ResponseParser:
        """Send ``data`` (a whole request) and wait for the whole reply.

        ``tunnel``: ``data`` is a ``CONNECT``, whose reply has no body and, when it
        is a 200, leaves the connection open for the tunnelled bytes.

        Raises:
            ProtocolError: the reply was not HTTP/1.1 or the connection closed first.
        """
        assert self.transport is not None and self._waiter is None
        parser = self._parser = ResponseParser(no_body=tunnel)
        waiter: asyncio.Future[ResponseParser] = asyncio.get_running_loop().create_future()
        self._waiter = waiter
        self.exchanges += 1
        self.transport.write(data)
        try:
            return await waiter
        finally:
            self._waiter = None
            self._parser = None
            opened = tunnel and parser.done and parser.status == 200
            if not (parser.done and (parser.keep_alive or opened)):
                self.close()

    def close(self) -> None:
        """Drop the connection now (an unfinished reply is abandoned)."""
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    def _on_close(self, exc: Exception | None) -> None:
        parser = self._parser
        if parser is None or self._waiter is None or self._waiter.done():
            self.closed = True
            return
        try:
            parser.eof()
        except ProtocolError as e:
            if exc is not None:
                e.__cause__ = exc
            self._fail(e)
        else:
            self._resolve(parser)
        self.closed = True

    def _resolve(self, parser: ResponseParser) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(parser)

    def _fail(self, error: Exception) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(error)
