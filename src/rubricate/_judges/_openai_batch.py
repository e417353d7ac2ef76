"""The OpenAI Batch API for an ``openai/<model>`` judge: files, batches, results.

One JSONL line per request (``{"custom_id", "method": "POST", "url":
"/v1/chat/completions", "body"}``, the body exactly what the judge would POST),
uploaded with ``POST /files`` (``purpose=batch``, multipart), turned into a batch
with ``POST /batches`` (``completion_window=24h``), polled with
``GET /batches/{id}``, its output and error files read with
``GET /files/{id}/content``. Documented limits: 50,000 requests and 200 MB per
input file, one model per file. Calls to these endpoints retry transient failures
(connection, 5xx, 429) a few times, except the creation of a batch, which is
tried once: the caller searches the list of batches for its file before trying
again, so a reply lost on the way never makes a second batch. Anything else is a
:class:`RunError`, which stops the run (it resumes where it stopped).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .._errors import ConfigError, JudgeError, RunError
from ._base import Decision, JudgeRequest, JudgeResponse
from ._cost import BATCH_DISCOUNT, cost_of
from ._http import HTTPReply, client_session, status_error
from ._openai import OFFICIAL_URL, OpenAIJudge, _plain
from ._reliable import ReliableJudge
from ._retry import TRANSIENT

__all__ = ["MAX_BATCH_BYTES", "MAX_BATCH_REQUESTS", "LineResult", "OpenAIBatches"]

MAX_BATCH_REQUESTS = 50_000
MAX_BATCH_BYTES = 200 * 1024 * 1024
CHAT_URL = "/v1/chat/completions"
_TRIES = 5
_REQUEUED = frozenset({"batch_expired", "batch_cancelled"})


@dataclass(frozen=True)
class LineResult:
    """One line of an output or error file, read.

    ``response`` for an answer; else ``error`` with its ``category``; ``retry`` when
    the request was never run (the batch expired or was cancelled first) or failed
    transiently, so it belongs in a later batch.
    """

    custom_id: str
    response: JudgeResponse | None = None
    error: str | None = None
    category: str = "unknown"
    retry: bool = False


class OpenAIBatches:
    """The Batch API of the server an :class:`OpenAIJudge` talks to."""

    provider = "openai"

    def __init__(self, judge: OpenAIJudge, reliable: ReliableJudge | None = None) -> None:
        self.judge = judge
        self.reliable = reliable
        if len(judge.base_urls) > 1:
            raise ConfigError(
                f"--batch-api needs one --base-url; {judge.name!r} has {len(judge.base_urls)} "
                "(a fleet of servers has no single Batch API to send batches to)"
            )
        self.base = (judge.base_urls[0] if judge.base_urls else OFFICIAL_URL).strip().rstrip("/")
        self.host = urlsplit(self.base).hostname or ""
        self.headers = {k: v for k, v in judge.headers.items() if k.lower() != "content-type"}
        self.timeout_s = max(60.0, judge.config.timeout_s)

    # -- request lines -----------------------------------------------------------
    def body(self, request: JudgeRequest) -> str:
        """The chat-completions body of ``request``, as JSON text."""
        logprobs = request.decision is not None
        return json.dumps(self.judge._params(request, True, logprobs), default=_plain)

    @staticmethod
    def line(custom_id: str, body: str) -> bytes:
        """One line of the input file (with its newline)."""
        head = json.dumps({"custom_id": custom_id, "method": "POST", "url": CHAT_URL})
        return (head[:-1] + ', "body": ' + body + "}\n").encode()

    # -- HTTP --------------------------------------------------------------------
    async def _call(self, method: str, path: str, *, tries: int = _TRIES, **kw: Any) -> HTTPReply:
        import aiohttp

        session = await client_session(self.host)
        url = self.base + path
        last: JudgeError | None = None
        for attempt in range(tries):
            if attempt:
                await asyncio.sleep(min(30.0, 0.5 * 2**attempt) * random.uniform(0.5, 1.0))
            data = kw.get("data")
            if callable(data):  # a multipart body is built afresh for each attempt
                kw = {**kw, "data": data()}
            try:
                timeout = aiohttp.ClientTimeout(total=self.timeout_s)
                async with session.request(
                    method, url, headers=self.headers, timeout=timeout, **kw
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
        raise RunError(f"OpenAI Batch API: {method} {path} failed: {last}") from last

    async def _json(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        reply = await self._call(method, path, **kw)  # tries=... passes through
        try:
            data = reply.json()
        except JudgeError as e:
            raise RunError(f"OpenAI Batch API: {method} {path}: {e}") from None
        if not isinstance(data, dict):
            raise RunError(f"OpenAI Batch API: {method} {path} returned {type(data).__name__}")
        return data

    async def upload(self, path: Path) -> str:
        """Upload a JSONL input file (``purpose=batch``); returns its file id."""
        import aiohttp

        def form() -> Any:
            f = aiohttp.FormData()
            f.add_field("purpose", "batch")
            f.add_field(
                "file", path.read_bytes(), filename=path.name, content_type="application/jsonl"
            )
            return f

        got = await self._json("POST", "/files", data=form)
        return _id(got, "file")

    async def create(self, file_id: str, metadata: Mapping[str, str]) -> dict[str, Any]:
        """Create the batch of an uploaded file; returns the batch object."""
        payload = {
            "input_file_id": file_id,
            "endpoint": CHAT_URL,
            "completion_window": "24h",
            "metadata": dict(metadata),
        }
        # one try: a lost reply may hide a created batch; the caller looks before retrying
        got = await self._json("POST", "/batches", json=payload, tries=1)
        _id(got, "batch")
        return got

    async def find(self, file_id: str, *, pages: int = 20) -> dict[str, Any] | None:
        """The batch made of ``file_id``, searched in the newest ``100 * pages`` batches."""
        after: str | None = None
        for _ in range(pages):
            params = {"limit": "100", **({"after": after} if after else {})}
            got = await self._json("GET", "/batches", params=params)
            data = got.get("data") if isinstance(got.get("data"), list) else []
            for batch in data or []:
                if isinstance(batch, dict) and batch.get("input_file_id") == file_id:
                    return batch
            if not got.get("has_more") or not data:
                return None
            after = str(got.get("last_id") or data[-1].get("id"))
        return None

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        """The batch object now."""
        return await self._json("GET", f"/batches/{batch_id}")

    async def lines(self, file_id: str) -> AsyncIterator[bytes]:
        """Yield the lines of a file's content, read in chunks (a file may be large).

        Raises:
            RunError: the download failed (a resumed run downloads the file again).
        """
        import aiohttp

        session = await client_session(self.host)
        url = f"{self.base}/files/{file_id}/content"
        timeout = aiohttp.ClientTimeout(total=None, sock_read=self.timeout_s)
        try:
            async with session.get(url, headers=self.headers, timeout=timeout) as resp:
                if resp.status != 200:
                    reply = HTTPReply(resp.status, dict(resp.headers), await resp.read())
                    raise RunError(f"OpenAI Batch API: GET {url}: {status_error(reply)}")
                rest = b""
                async for chunk in resp.content.iter_chunked(1 << 20):
                    *whole, rest = (rest + chunk).split(b"\n")
                    for raw in whole:
                        if raw.strip():
                            yield raw
                if rest.strip():
                    yield rest
        except (aiohttp.ClientError, TimeoutError) as e:
            raise RunError(f"OpenAI Batch API: GET {url}: {type(e).__name__}: {e}") from e

    # -- results -----------------------------------------------------------------
    def read(self, obj: Any, decision: Decision | None) -> LineResult:
        """Read one line of an output or error file."""
        cid = str(obj.get("custom_id") or "") if isinstance(obj, dict) else ""
        error = obj.get("error") if isinstance(obj, dict) else None
        response = obj.get("response") if isinstance(obj, dict) else None
        if isinstance(error, dict) and error:
            code = str(error.get("code") or "")
            message = str(error.get("message") or code or "unknown error")
            return LineResult(cid, error=message, retry=code in _REQUEUED)
        if not isinstance(response, dict):
            return LineResult(cid, error="the result line holds no response", category="server")
        status = response.get("status_code")
        body = response.get("body")
        if status != 200:
            reply = HTTPReply(int(status or 500), {}, json.dumps(body).encode())
            e = status_error(reply)
            return LineResult(cid, error=str(e), category=e.category, retry=e.category in TRANSIENT)
        request = JudgeRequest(system="", user="", schema={}, decision=decision)
        try:
            got = self.judge._read(body, 0.0, request)
        except JudgeError as e:
            return LineResult(cid, error=str(e), category=e.category)
        return LineResult(cid, response=self._priced(got))

    def _priced(self, response: JudgeResponse) -> JudgeResponse:
        from dataclasses import replace

        rel = self.reliable
        if rel is None:
            return response
        p = rel.provider
        cost = cost_of(
            response.usage,
            provider=p.price_provider,
            model=p.model,
            api_url=p.price_url,
            prices=rel.config.prices,
        )
        return replace(response, cost=None if cost is None else cost * BATCH_DISCOUNT)


def _id(obj: Mapping[str, Any], what: str) -> str:
    value = obj.get("id")
    if not isinstance(value, str) or not value:
        raise RunError(f"OpenAI Batch API: the created {what} has no id: {dict(obj)!r}")
    return value
