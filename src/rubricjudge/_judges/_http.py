"""JSON over HTTP for the judge backends, on aiohttp.

One :class:`Endpoint` per judge holds the URL and headers; a call POSTs a
pre-serialised body and returns the reply's status, headers and (decompressed)
body, whatever the status; every failure becomes a :class:`JudgeError` whose
category the reliability layer knows how to retry.

- The aiohttp sessions (one per event loop and kind, keep-alive, TLS from our CA
  bundle, proxies from the environment) are ``_http_sessions``'s; the provider limits
  in ``_provider_limits`` bound calls in flight.
- ``timeout_s`` bounds the whole call; connecting has its own bound (at most 30 s).
- A reply body may be at most ``MAX_REPLY_BYTES`` once decompressed (gzip, deflate,
  brotli where installed): it is read in chunks and refused past the cap, so a
  compression bomb or a chunk declared a terabyte long is never buffered.
- TLS certificates come from ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` when set, else from
  ``certifi``. An untrusted certificate is ``bad_request`` (retrying cannot help).
- Proxies come from the environment (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``,
  ``NO_PROXY``, with credentials in the proxy URL); loopback hosts (``localhost``,
  127.x, ``::1``) never go through a proxy.
- A redirect that keeps the method (307, 308) to the same scheme, host and port is
  followed (at most 5); any other is refused as ``bad_request`` naming where it
  points: a 301, 302 or 303 would turn the POST into a GET with no prompt, whose
  reply must never be read as a verdict, and another host must not get the key.
- A pooled connection the server closed while idle is replaced and the request sent
  once more, when no byte of a reply had arrived (the connector tells a reused
  connection from a new one; no tracing hook runs on every request).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .._errors import ConfigError, JudgeError, JudgeErrorCategory
from .._limits import may_hold_surrogates, without_surrogates
from ._http_sessions import REUSED, is_loopback, loop_sessions
from ._retry import parse_retry_after

__all__ = [
    "MAX_REPLY_BYTES",
    "Endpoint",
    "HTTPReply",
    "merge_headers",
    "status_category",
    "status_error",
]

MAX_REPLY_BYTES = 32 * 1024 * 1024
"""The largest reply body read (after decompression); a judge's reply is kilobytes."""

_FRAMING = frozenset({"host", "content-length", "transfer-encoding", "connection"})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_MAX_REDIRECTS = 5


@dataclass(frozen=True)
class HTTPReply:
    """A reply's status, headers (names in lower case) and body, whatever the status."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    endpoint: int = -1  # which endpoint of a fleet answered (see Fleet.unreadable)

    def json(self) -> Any:
        """The body as JSON (a lone surrogate in its strings becomes U+FFFD).

        A reply is stored in the run store and written to reports, which hold UTF-8:
        half an emoji from a server must not fail the run there.

        Raises:
            JudgeError: category ``parse`` when the body is not JSON.
        """
        try:
            data = json.loads(self.body)
        except ValueError as e:  # UnicodeDecodeError is a ValueError too
            head = self.body[:120].decode("utf-8", "replace")
            raise JudgeError(
                f"the server's reply is not JSON ({e}): {head!r}", category="parse"
            ) from None
        # a walk over every string of the reply only when an escape could have made one
        return without_surrogates(data)[0] if may_hold_surrogates(self.body) else data


@dataclass(frozen=True)
class _Hop:
    """Where a TCP connection goes: host, port, and whether it speaks TLS."""

    host: str
    port: int
    tls: bool


@functools.lru_cache(maxsize=64)
def _timeout(timeout_s: float) -> Any:
    """The bounds of one call (an immutable object: made once per value, not per call)."""
    import aiohttp

    return aiohttp.ClientTimeout(total=timeout_s, sock_connect=min(timeout_s, 30.0))


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


class Endpoint:
    """One URL to POST JSON to, with its headers; made once, called many times.

    Raises:
        ConfigError: the URL is not http(s), or a header holds a line break or is one
            the client sets itself.
    """

    def __init__(self, url: str, headers: Mapping[str, str]) -> None:
        import yarl

        self.target = _hop(url, "judge URL")
        try:
            self.url = yarl.URL(url.strip())  # spaces and non-ASCII are encoded, not sent raw
        except (ValueError, TypeError) as e:
            raise ConfigError(f"judge URL {url!r} is not a valid URL: {e}") from None
        if self.url.user is not None and any(n.lower() == "authorization" for n in headers):
            raise ConfigError(
                f"judge URL {url!r} carries credentials and the judge sends an Authorization "
                "header too; give one of them"
            )
        owned = [n for n in headers if n.lower() in _FRAMING]
        if owned:
            raise ConfigError(
                f"HTTP header {owned[0]!r} is set by the client itself; remove it from the "
                "judge's extra_headers"
            )
        for name, value in headers.items():
            if any(c in f"{name}{value}" for c in "\r\n\0"):
                raise ConfigError(
                    f"HTTP header {name!r} holds a line break; remove it from the judge's "
                    "extra_headers"
                )
        self.headers = merge_headers({"Accept-Encoding": "gzip, deflate"}, headers)
        if not any(n.lower() == "content-type" for n in self.headers):
            self.headers["Content-Type"] = "application/json"
        self.direct = is_loopback(self.target.host)
        self.plain = self.direct and not self.target.tls  # nothing to verify: no CA bundle

    def __repr__(self) -> str:
        return f"Endpoint({str(self.url)!r})"

    async def post(self, body: bytes, *, timeout_s: float) -> HTTPReply:
        """POST ``body`` (JSON bytes); the reply whatever its status.

        Raises:
            JudgeError: ``timeout`` when no whole reply came within ``timeout_s``;
                ``connection`` when the connection failed or closed before the reply
                was whole; ``auth`` when a proxy refused the credentials; ``server``
                for a reply past ``MAX_REPLY_BYTES``; ``bad_request`` when TLS
                verification failed.
        """
        import aiohttp

        sessions = await loop_sessions()
        if self.plain:
            session = sessions.plain
        else:
            session = sessions.direct if self.direct else sessions.proxied
        timeout = _timeout(timeout_s)
        url = self.url
        try:
            for _ in range(_MAX_REDIRECTS + 1):
                reply = await self._send(session, url, body, timeout)
                if reply.status not in _REDIRECTS:
                    return reply
                url = self._redirect(url, reply)
            raise JudgeError(f"too many redirects from {self.url}", category="bad_request")
        except TimeoutError as e:
            raise JudgeError(f"no reply within {timeout_s:g} s", category="timeout") from e
        except aiohttp.ClientConnectorCertificateError as e:
            raise JudgeError(
                f"TLS certificate of {self.target.host} not trusted ({e.certificate_error}); "
                "point SSL_CERT_FILE at the right CA bundle",
                category="bad_request",
            ) from e
        except aiohttp.ClientHttpProxyError as e:
            raise JudgeError(
                f"the proxy refused to reach {self.target.host}: HTTP {e.status} {e.message}",
                category="auth" if e.status == 407 else "connection",
            ) from e
        except aiohttp.ClientConnectorError as e:
            reason = e.strerror or str(e.os_error) or type(e).__name__
            raise JudgeError(
                f"cannot reach {e.host}:{e.port}: {reason}", category="connection"
            ) from e
        except aiohttp.ServerDisconnectedError as e:
            raise JudgeError(
                f"{self.target.host} closed the connection without replying", category="connection"
            ) from e
        except aiohttp.ClientError as e:  # malformed replies, payload errors, resets
            raise JudgeError(
                f"{type(e).__name__} talking to {self.target.host}: {e}", category="connection"
            ) from e
        raise AssertionError("unreachable")  # pragma: no cover

    async def _send(self, session: Any, url: Any, body: bytes, timeout: Any) -> HTTPReply:
        import aiohttp

        for attempt in (1, 2):
            REUSED.set(False)
            try:
                return await self._once(session, url, body, timeout)
            except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as e:
                if attempt == 2 or not REUSED.get() or isinstance(e, aiohttp.ClientConnectorError):
                    raise
                # a kept-alive connection the server had closed while idle: once more
        raise AssertionError("unreachable")  # pragma: no cover

    def _redirect(self, url: Any, reply: HTTPReply) -> Any:
        """Where a 307/308 to the same origin points; any other redirect is an error."""
        location = reply.headers.get("location", "")
        if not location:
            raise JudgeError(
                f"{url} answered HTTP {reply.status} with no Location", category="bad_request"
            )
        try:
            target = url.join(type(url)(location))
        except (ValueError, TypeError):
            target = None
        same = target is not None and target.origin() == url.origin()
        if reply.status in (307, 308) and same:
            return target
        why = (
            "which would send the judge call on as a GET, without its prompt"
            if reply.status not in (307, 308)
            else "on another host, which would get the API key"
        )
        raise JudgeError(
            f"{url} redirects (HTTP {reply.status}) to {location}, {why}; give the URL it "
            "points to as the judge's base URL",
            category="bad_request",
        )

    async def _once(self, session: Any, url: Any, body: bytes, timeout: Any) -> HTTPReply:
        async with session.post(
            url,
            data=body,
            headers=self.headers,
            timeout=timeout,
            allow_redirects=False,
        ) as resp:
            chunks: list[bytes] = []
            size = 0
            async for chunk in resp.content.iter_chunked(1024 * 1024):
                size += len(chunk)
                if size > MAX_REPLY_BYTES:
                    raise JudgeError(
                        f"the reply is larger than {MAX_REPLY_BYTES // (1024 * 1024)} MiB; "
                        "no judge reply is that long",
                        category="server",
                    )
                chunks.append(chunk)
            headers = {k.lower(): v for k, v in resp.headers.items()}
            return HTTPReply(resp.status, headers, b"".join(chunks))


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
