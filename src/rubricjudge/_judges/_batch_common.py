"""What every provider batch API shares: the contract, HTTP with retries, results, prices.

A provider's batch API is one :class:`BatchAPI` (``OpenAIBatches``,
``AnthropicBatches``); the run engine (``_runs/_batch_run.py``) speaks only this
contract, so the store tables, rounds, resubmission and cost logic are the same
for every provider. A provider normalises its batch object to the shape the
engine reads: ``id``, ``status`` (one of :data:`TERMINAL` once nothing more will
be answered), ``request_counts`` (``completed``, ``failed``), ``output_file_id``
/ ``error_file_id`` (what :meth:`BatchAPI.lines` reads: file ids, or a results
URL) and ``errors``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from .._errors import AmbiguousBatch, JudgeError, RunError
from ._base import Decision, JudgeRequest, JudgeResponse
from ._cost import BATCH_DISCOUNT, cost_of
from ._http import HTTPReply, status_error
from ._http_sessions import client_session
from ._reliable import ReliableJudge
from ._retry import TRANSIENT

__all__ = [
    "LARGEST_BATCH_BYTES",
    "LARGEST_BATCH_REQUESTS",
    "TERMINAL",
    "AmbiguousBatch",
    "BatchAPI",
    "BatchHTTP",
    "LineResult",
    "batch_priced",
]

TERMINAL = frozenset({"completed", "failed", "expired", "cancelled", "ended"})
"""Statuses after which a batch answers nothing more (OpenAI's four, Anthropic's ``ended``)."""

LARGEST_BATCH_REQUESTS = 100_000
"""Requests per batch the most generous provider takes (Anthropic's Message Batches)."""
LARGEST_BATCH_BYTES = 256 * 1000 * 1000 - 64 * 1024  # 256 MB, less room for the envelope
"""Bytes per batch the most generous provider takes (Anthropic's)."""

_TRIES = 5


@dataclass(frozen=True)
class LineResult:
    """One result line, read.

    ``response`` for an answer; else ``error`` with its ``category``; ``retry`` when
    the request was never run (the batch expired or was cancelled first) or failed
    transiently, so it belongs in a later batch.
    """

    custom_id: str
    response: JudgeResponse | None = None
    error: str | None = None
    category: str = "unknown"
    retry: bool = False


class BatchAPI(Protocol):
    """One provider's batch API, as the run engine uses it."""

    provider: str
    max_requests: int
    max_bytes: int

    def body(self, request: JudgeRequest) -> str:
        """What the judge would send for ``request``, as JSON text (kept in the store)."""
        ...

    def line(self, custom_id: str, body: str) -> bytes:
        """One request of a batch, serialised; its length counts against ``max_bytes``."""
        ...

    async def upload(self, path: Path) -> str | None:
        """Upload a batch's input file; None when the provider takes requests inline."""
        ...

    async def create(
        self, file_id: str | None, lines: Callable[[], list[bytes]], local: int
    ) -> dict[str, Any]:
        """Create a batch (tried once: a lost reply may hide a created batch)."""
        ...

    async def find(
        self, file_id: str | None, requests: int, since: float | None, known: set[str]
    ) -> dict[str, Any] | None:
        """The batch a create whose reply was lost made, if it exists (not in ``known``).

        Raises:
            AmbiguousBatch: several batches could be it.
        """
        ...

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        """The batch now, normalised (see the module docstring)."""
        ...

    def lines(self, file_id: str) -> AsyncIterator[bytes]:
        """The lines of a result file (an output/error file id, or a results URL)."""
        ...

    def read(self, obj: Any, decision: Decision | None, body: str | None) -> LineResult:
        """Read one result line; ``body`` is the stored request it answers."""
        ...


class BatchHTTP:
    """HTTP to one provider's batch endpoints: transient failures retried, others a RunError."""

    def __init__(self, label: str, base: str, headers: Mapping[str, str], timeout_s: float):
        self.label = label
        self.base = base
        self.host = urlsplit(base).hostname or ""
        self.headers = dict(headers)
        self.timeout_s = max(60.0, timeout_s)

    async def call(self, method: str, path: str, *, tries: int = _TRIES, **kw: Any) -> HTTPReply:
        """One request (``path`` under the base URL), retried on transient failures."""
        import aiohttp

        session = await client_session(self.host)
        url = self.base + path
        headers = {**self.headers, **kw.pop("headers", {})}
        last: JudgeError | None = None
        for attempt in range(tries):
            if attempt:
                await asyncio.sleep(min(30.0, 0.5 * 2**attempt) * random.uniform(0.5, 1.0))
            data = kw.get("data")
            if callable(data):  # a body built afresh for each attempt
                kw = {**kw, "data": data()}
            try:
                timeout = aiohttp.ClientTimeout(total=self.timeout_s)
                async with session.request(
                    method, url, headers=headers, timeout=timeout, **kw
                ) as resp:
                    reply = HTTPReply(resp.status, dict(resp.headers), await resp.read())
            except (aiohttp.ClientError, TimeoutError) as e:
                last = JudgeError(f"{method} {url}: {type(e).__name__}: {e}", category="connection")
                continue
            if 200 <= reply.status < 300:
                return reply
            last = status_error(reply)
            if last.category not in TRANSIENT:
                break
        assert last is not None
        raise RunError(f"{self.label}: {method} {path} failed: {last}") from last

    async def json(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        """A request whose reply is a JSON object."""
        reply = await self.call(method, path, **kw)
        try:
            data = reply.json()
        except JudgeError as e:
            raise RunError(f"{self.label}: {method} {path}: {e}") from None
        if not isinstance(data, dict):
            raise RunError(f"{self.label}: {method} {path} returned {type(data).__name__}")
        return data

    async def stream(self, url: str) -> AsyncIterator[bytes]:
        """Yield the non-empty lines at ``url``, read in chunks (results may be large).

        Raises:
            RunError: the download failed (a resumed run downloads it again).
        """
        import aiohttp

        session = await client_session(urlsplit(url).hostname or self.host)
        timeout = aiohttp.ClientTimeout(total=None, sock_read=self.timeout_s)
        try:
            async with session.get(url, headers=self.headers, timeout=timeout) as resp:
                if resp.status != 200:
                    reply = HTTPReply(resp.status, dict(resp.headers), await resp.read())
                    raise RunError(f"{self.label}: GET {url}: {status_error(reply)}")
                rest = b""
                async for chunk in resp.content.iter_chunked(1 << 20):
                    *whole, rest = (rest + chunk).split(b"\n")
                    for raw in whole:
                        if raw.strip():
                            yield raw
                if rest.strip():
                    yield rest
        except (aiohttp.ClientError, TimeoutError) as e:
            raise RunError(f"{self.label}: GET {url}: {type(e).__name__}: {e}") from e


def batch_priced(reliable: ReliableJudge | None, response: JudgeResponse) -> JudgeResponse:
    """``response`` with its cost at batch prices (the judge's listed price, discounted)."""
    if reliable is None:
        return response
    p = reliable.provider
    cost = cost_of(
        response.usage,
        provider=p.price_provider,
        model=p.model,
        api_url=p.price_url,
        prices=reliable.config.prices,
    )
    return replace(response, cost=None if cost is None else cost * BATCH_DISCOUNT)
