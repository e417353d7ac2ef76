"""The aiohttp sessions the judge backends share: one per event loop and kind.

Three kinds: ``proxied`` (through the environment's proxies), ``direct`` (loopback
hosts, never proxied) and ``plain`` (``http://`` on loopback: no CA bundle loaded).
Each is made when first used and closed with its loop (``asyncio.run`` finalizes the
async generator that owns them). The connector keeps connections alive (idle ones
expire after 30 s), caps them at ``MAX_CONNECTIONS`` and tells each request whether its
connection was used before (``REUSED``), which ``_http`` needs to retry a request a
server dropped while the connection idled. TLS certificates come from
``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` when set, else from ``certifi``.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import ipaddress
import os
import ssl
import threading
import weakref
from collections.abc import AsyncIterator
from typing import Any

from .._version import __version__

__all__ = [
    "MAX_CONNECTIONS",
    "REUSED",
    "USER_AGENT",
    "Sessions",
    "client_session",
    "is_loopback",
    "loop_sessions",
]

USER_AGENT = f"rubricjudge/{__version__}"
MAX_CONNECTIONS = 256
"""Open connections per event loop at most (keep-alive ones included)."""
_LOCK = threading.Lock()


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    if os.environ.get("SSL_CERT_FILE") or os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context()  # OpenSSL reads both variables itself
    try:
        import certifi
    except ImportError:  # pragma: no cover - certifi is a dependency
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


def is_loopback(host: str) -> bool:
    """True when ``host`` is this machine only (127.0.0.0/8, ``::1`` or ``localhost``)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


REUSED: contextvars.ContextVar[bool] = contextvars.ContextVar("rubricjudge_reused", default=False)
"""Whether the request being sent in this task went out on a kept-alive connection."""


@functools.cache
def connector_class() -> type[Any]:
    import aiohttp

    class Connector(aiohttp.TCPConnector):
        """A connector that tells, per request, whether its connection was used before.

        ``connect`` is awaited inline by the request (no task of its own), so the
        context variable it sets is the sending task's. This replaces a tracing hook,
        which makes aiohttp await a dozen signal sends on every request.
        """

        def __init__(self, **kw: Any) -> None:
            super().__init__(**kw)
            self._used: weakref.WeakSet[Any] = weakref.WeakSet()

        async def connect(self, req: Any, traces: Any, timeout: Any) -> Any:
            conn = await super().connect(req, traces, timeout)
            proto = conn.protocol
            if proto in self._used:
                REUSED.set(True)
            else:
                self._used.add(proto)
                REUSED.set(False)
            return conn

    return Connector


class Sessions:
    """The aiohttp sessions of one event loop: through proxies, and direct for loopback.

    Each is made when first needed, so a run against ``http://`` on this machine builds
    one session and no TLS context (``plain``: loopback, and no TLS to verify).
    """

    def __init__(self) -> None:
        self._made: dict[str, Any] = {}

    def _get(self, kind: str) -> Any:
        session = self._made.get(kind)
        if session is None:
            import aiohttp

            connector = connector_class()(
                limit=MAX_CONNECTIONS,
                ssl=True if kind == "plain" else _ssl_context(),
                keepalive_timeout=30.0,
            )
            session = self._made[kind] = aiohttp.ClientSession(
                connector=connector,
                trust_env=kind == "proxied",
                auto_decompress=True,
                headers={"User-Agent": USER_AGENT},
            )
        return session

    @property
    def proxied(self) -> Any:
        """Through the environment's proxies; TLS verified with our CA bundle."""
        return self._get("proxied")

    @property
    def direct(self) -> Any:
        """Never through a proxy; TLS verified with our CA bundle."""
        return self._get("direct")

    @property
    def plain(self) -> Any:
        """Never through a proxy, for ``http://`` only: no CA bundle loaded."""
        return self._get("plain")

    async def close(self) -> None:
        for session in self._made.values():
            await session.close()


_SESSIONS: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, tuple[Sessions, AsyncIterator[None]]
] = weakref.WeakKeyDictionary()


async def _owner(sessions: Sessions) -> AsyncIterator[None]:
    # finalized by asyncio.run() before it closes the loop: the sessions close on the
    # loop that opened them, and nothing is left for the garbage collector to warn about
    try:
        yield
    finally:
        await sessions.close()


async def loop_sessions() -> Sessions:
    loop = asyncio.get_running_loop()
    got = _SESSIONS.get(loop)
    if got is not None:
        return got[0]
    sessions = Sessions()
    owner = _owner(sessions)
    await owner.__anext__()
    with _LOCK:
        _SESSIONS[loop] = (sessions, owner)
    return sessions


async def client_session(host: str) -> Any:
    """The aiohttp session of this event loop for ``host`` (direct for loopback hosts)."""
    sessions = await loop_sessions()
    return sessions.direct if is_loopback(host) else sessions.proxied
