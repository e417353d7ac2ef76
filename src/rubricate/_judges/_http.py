"""JSON over HTTP for the judge backends: keep-alive connections pooled per event loop.

At a few hundred calls per second the client's CPU, not the server, bounds a
run's throughput. A general-purpose client (the ``openai`` SDK, aiohttp) spends
most of a judge call's CPU on machinery the call does not use; this one does
what a judge needs and nothing else: one :class:`Endpoint` per judge holds the
request head ready, a call writes it with the pre-serialised body on a pooled
HTTP/1.1 connection (``_wire``) and gets the reply's bytes back, and every
failure becomes a :class:`JudgeError` whose category the reliability layer knows
how to retry (``benchmarks/batch_throughput.py`` measures the difference).

- Connections are pooled per event loop and origin and closed with the loop
  (``asyncio.run`` finalizes the async generator that owns each pool). The pool
  sets no cap: the provider limits in ``_limits`` bound the calls in flight.
- A pooled connection the server closed while idle is replaced and the request
  sent again, once, when no byte of a reply had arrived (as urllib3 and httpcore do).
- ``timeout_s`` bounds the whole call, from connecting to the reply's last byte.
- TLS certificates come from ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` when set, else
  from ``certifi`` when installed, else the system's store.
- Proxies come from the environment (``HTTPS_PROXY``, ``HTTP_PROXY``,
  ``NO_PROXY``), read when the endpoint is made: an ``https`` URL is tunnelled
  with ``CONNECT``, an ``http`` one is sent to the proxy in absolute form.
  Loopback hosts (``localhost``, 127.x, ``::1``) never go through a proxy.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import ipaddress
import json
import os
import ssl
import threading
import urllib.request
import weakref
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from .._errors import ConfigError, JudgeError, JudgeErrorCategory
from .._version import __version__
from ._retry import parse_retry_after
from ._wire import Connection, ProtocolError, request_head

__all__ = [
    "USER_AGENT",
    "Endpoint",
    "HTTPReply",
    "is_loopback",
    "merge_headers",
    "status_category",
    "status_error",
]

USER_AGENT = f"rubricate/{__version__}"

_FRAMING = frozenset({"host", "content-length", "transfer-encoding", "connection"})
_LOCK = threading.Lock()


@dataclass(frozen=True)
class HTTPReply:
    """A reply's status, headers (names in lower case) and body, whatever the status."""

    status: int
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        """The body as JSON.

        Raises:
            JudgeError: category ``parse`` when the body is not JSON.
        """
        try:
            return json.loads(self.body)
        except ValueError as e:  # UnicodeDecodeError is a ValueError too
            head = self.body[:120].decode("utf-8", "replace")
            raise JudgeError(
                f"the server's reply is not JSON ({e}): {head!r}", category="parse"
            ) from None


@dataclass(frozen=True)
class _Hop:
    """Where a TCP connection goes: host, port, and whether it speaks TLS."""

    host: str
    port: int
    tls: bool


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    if os.environ.get("SSL_CERT_FILE") or os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context()  # OpenSSL reads both variables itself
    try:
        import certifi
    except ImportError:  # pragma: no cover - certifi is a dependency
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


def _hop(url: str, what: str) -> _Hop:
    try:
        parts = urlsplit(url)
        scheme, host, port = parts.scheme, parts.hostname, parts.port
    except ValueError as e:  # a port that is not a number, say
        raise ConfigError(f"{what} {url!r} is not a valid URL: {e}") from None
    if scheme not in ("http", "https") or not host:
        raise ConfigError(
            f"{what} {url!r} is not an http(s) URL with a host; "
            "write it like 'http://localhost:8000/v1'"
        )
    return _Hop(host, port or (443 if scheme == "https" else 80), scheme == "https")


def merge_headers(*layers: Mapping[str, str]) -> dict[str, str]:
    """Headers from ``layers``, later ones winning; names compare without case."""
    out: dict[str, str] = {}
    for layer in layers:
        for name, value in layer.items():
            for old in [k for k in out if k.lower() == name.lower()]:
                del out[old]
            out[name] = value
    return out


def is_loopback(host: str) -> bool:
    """True when ``host`` is this machine only (127.0.0.0/8, ``::1`` or ``localhost``)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _env_proxy(scheme: str, host: str) -> str | None:
    if is_loopback(host) or urllib.request.proxy_bypass(host):
        return None  # a proxy cannot reach this machine's own servers
    return urllib.request.getproxies().get(scheme)


class _Pool:
    """Idle connections of one event loop, by (target, proxy)."""

    def __init__(self) -> None:
        self.idle: dict[tuple[_Hop, _Hop | None], list[Connection]] = {}

    def take(self, key: tuple[_Hop, _Hop | None]) -> Connection | None:
        idle = self.idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.reusable:
                return conn
        return None

    def give(self, key: tuple[_Hop, _Hop | None], conn: Connection) -> None:
        if conn.reusable:
            self.idle.setdefault(key, []).append(conn)

    def close(self) -> None:
        for conns in self.idle.values():
            for conn in conns:
                conn.close()
        self.idle.clear()


_POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[_Pool, AsyncIterator[None]]] = (
    weakref.WeakKeyDictionary()
)


async def _owner(pool: _Pool) -> AsyncIterator[None]:
    # finalized by asyncio.run() before it closes the loop: the sockets close on the
    # loop that opened them, and nothing is left for the garbage collector to warn about
    try:
        yield
    finally:
        pool.close()


async def _pool() -> _Pool:
    loop = asyncio.get_running_loop()
    got = _POOLS.get(loop)
    if got is not None:
        return got[0]
    pool = _Pool()
    owner = _owner(pool)
    await owner.__anext__()
    with _LOCK:
        _POOLS[loop] = (pool, owner)
    return pool


class Endpoint:
    """One URL to POST JSON to, with its headers; made once, called many times.

    Raises:
        ConfigError: the URL is not http(s), or a header holds a line break.
    """

    def __init__(self, url: str, headers: Mapping[str, str]) -> None:
        self.url = url
        self.target = _hop(url, "judge URL")
        parts = urlsplit(url)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        owned = [n for n in headers if n.lower() in _FRAMING]
        if owned:
            raise ConfigError(
                f"HTTP header {owned[0]!r} is set by the client itself; remove it from the "
                "judge's extra_headers"
            )
        defaults = {"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, deflate"}
        all_headers = merge_headers(defaults, headers)
        proxy_url = _env_proxy(parts.scheme, parts.hostname or "")
        self.proxy: _Hop | None = None
        self._proxy_auth: str | None = None
        if proxy_url:
            proxy_url = proxy_url if "://" in proxy_url else f"http://{proxy_url}"
            self.proxy = _hop(proxy_url, "proxy (from the environment)")
            p = urlsplit(proxy_url)
            if p.username is not None:
                secret = f"{unquote(p.username)}:{unquote(p.password or '')}"
                self._proxy_auth = "Basic " + base64.b64encode(secret.encode()).decode()
            if not self.target.tls:  # plain http through a proxy: absolute form
                path = url.split("#", 1)[0]
                if self._proxy_auth:
                    all_headers["Proxy-Authorization"] = self._proxy_auth
        self._key = (self.target, self.proxy)
        authority = parts.netloc.rsplit("@", 1)[-1]
        try:
            head = request_head("POST", path, authority, all_headers, None)
        except ValueError as e:
            raise ConfigError(f"{e}; remove it from the judge's extra_headers") from None
        self._head = head[:-2]  # each call adds its Content-Length and the blank line

    def __repr__(self) -> str:
        return f"Endpoint({self.url!r})"

    async def post(self, body: bytes, *, timeout_s: float) -> HTTPReply:
        """POST ``body`` (JSON bytes); the reply whatever its status.

        Raises:
            JudgeError: ``timeout`` when no whole reply came within ``timeout_s``;
                ``connection`` when the connection failed or closed before the reply
                was whole; ``bad_request`` when TLS verification failed.
        """
        data = b"%sContent-Length: %d\r\n\r\n%s" % (self._head, len(body), body)
        pool = await _pool()
        try:
            async with asyncio.timeout(timeout_s):
                for fresh_retry in (False, True):
                    conn = None if fresh_retry else pool.take(self._key)
                    reused = conn is not None
                    if conn is None:
                        conn = await self._connect()
                    try:
                        reply = await conn.exchange(data)
                    except ProtocolError as e:
                        if reused and not e.started:
                            continue  # the server had closed the idle connection: once more
                        raise
                    pool.give(self._key, conn)
                    return HTTPReply(reply.status, reply.headers, reply.body)
        except TimeoutError as e:
            raise JudgeError(f"no reply within {timeout_s:g} s", category="timeout") from e
        except ProtocolError as e:
            raise JudgeError(str(e), category="connection") from e
        except ssl.SSLCertVerificationError as e:
            raise JudgeError(
                f"TLS certificate of {self.target.host} not trusted ({e.verify_message}); "
                "point SSL_CERT_FILE at the right CA bundle",
                category="bad_request",
            ) from e
        except OSError as e:
            where = self.proxy or self.target
            reason = e.strerror or str(e) or type(e).__name__
            raise JudgeError(
                f"cannot reach {where.host}:{where.port}: {reason}", category="connection"
            ) from e
        raise AssertionError("unreachable")  # pragma: no cover

    async def _connect(self) -> Connection:
        loop = asyncio.get_running_loop()
        first = self.proxy or self.target
        _, conn = await loop.create_connection(
            Connection,
            first.host,
            first.port,
            ssl=_ssl_context() if first.tls else None,
            server_hostname=first.host if first.tls else None,
        )
        if self.proxy is None or not self.target.tls:
            return conn
        try:  # https through a proxy: a CONNECT tunnel, then TLS inside it
            await self._tunnel(conn, loop, self.proxy)
        except BaseException:
            conn.close()
            raise
        return conn

    async def _tunnel(self, conn: Connection, loop: asyncio.AbstractEventLoop, proxy: _Hop) -> None:
        where = f"{self.target.host}:{self.target.port}"
        headers = {"Proxy-Authorization": self._proxy_auth} if self._proxy_auth else {}
        reply = await conn.exchange(
            request_head("CONNECT", where, where, headers, None), tunnel=True
        )
        if reply.status != 200:
            raise JudgeError(
                f"proxy {proxy.host} refused to tunnel to {where}: "
                f"HTTP {reply.status} {reply.reason}",
                category="auth" if reply.status == 407 else "connection",
            )
        assert conn.transport is not None
        tls = await loop.start_tls(
            conn.transport, conn, _ssl_context(), server_hostname=self.target.host
        )
        assert isinstance(tls, asyncio.Transport)
        conn.transport = tls


def status_category(status: int) -> JudgeErrorCategory:
    """The error category of a non-2xx HTTP status."""
    if status in (401, 403, 407):
        return "auth"
    if status == 408:
        return "timeout"
    if status == 429:
        return "rate_limit"
    if status >= 500 or status == 409:
        return "server"
    return "bad_request"


def error_message(reply: HTTPReply) -> str:
    """The error a non-2xx reply states (``{"error": {"message": ...}}`` and kin)."""
    try:
        data = json.loads(reply.body)
    except ValueError:
        data = None
    if isinstance(data, Mapping):
        err = data.get("error", data)
        if isinstance(err, Mapping):
            err = err.get("message") or err.get("detail") or err.get("msg")
        if isinstance(err, str) and err:
            return err
    text = reply.body[:300].decode("utf-8", "replace").strip()
    return text or "(empty body)"


def status_error(reply: HTTPReply) -> JudgeError:
    """A :class:`JudgeError` for a non-2xx reply, with its ``Retry-After`` kept."""
    return JudgeError(
        f"HTTP {reply.status}: {error_message(reply)}",
        category=status_category(reply.status),
        retry_after=parse_retry_after(reply.headers),
    )
