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

import json
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

from .._errors import ConfigError, JudgeError, RunError
from ._base import Decision, JudgeRequest
from ._batch_common import BatchHTTP, LineResult, batch_priced
from ._http import HTTPReply, status_error
from ._openai import OFFICIAL_URL, OpenAIJudge, _plain
from ._reliable import ReliableJudge
from ._retry import TRANSIENT

__all__ = ["MAX_BATCH_BYTES", "MAX_BATCH_REQUESTS", "LineResult", "OpenAIBatches"]

MAX_BATCH_REQUESTS = 50_000
MAX_BATCH_BYTES = 200 * 1024 * 1024
CHAT_URL = "/v1/chat/completions"
_REQUEUED = frozenset({"batch_expired", "batch_cancelled"})


class OpenAIBatches:
    """The Batch API of the server an :class:`OpenAIJudge` talks to (a ``BatchAPI``)."""

    provider = "openai"
    max_requests = MAX_BATCH_REQUESTS
    max_bytes = MAX_BATCH_BYTES

    def __init__(self, judge: OpenAIJudge, reliable: ReliableJudge | None = None) -> None:
        self.judge = judge
        self.reliable = reliable
        if len(judge.base_urls) > 1:
            raise ConfigError(
                f"--batch-api needs one --base-url; {judge.name!r} has {len(judge.base_urls)} "
                "(a fleet of servers has no single Batch API to send batches to)"
            )
        base = (judge.base_urls[0] if judge.base_urls else OFFICIAL_URL).strip().rstrip("/")
        headers = {k: v for k, v in judge.headers.items() if k.lower() != "content-type"}
        self.http = BatchHTTP("OpenAI Batch API", base, headers, judge.config.timeout_s)

    # -- request lines -----------------------------------------------------------
    def body(self, request: JudgeRequest) -> str:
        """The chat-completions body of ``request``, as JSON text."""
        logprobs = request.decision is not None
        return json.dumps(self.judge._params(request, True, logprobs), default=_plain)

    def line(self, custom_id: str, body: str) -> bytes:
        """One line of the input file (with its newline)."""
        head = json.dumps({"custom_id": custom_id, "method": "POST", "url": CHAT_URL})
        return (head[:-1] + ', "body": ' + body + "}\n").encode()

    # -- HTTP --------------------------------------------------------------------
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

        got = await self.http.json("POST", "/files", data=form)
        return _id(got, "file")

    async def create(
        self, file_id: str | None, lines: Callable[[], list[bytes]], local: int
    ) -> dict[str, Any]:
        """Create the batch of an uploaded file; returns the batch object."""
        payload = {
            "input_file_id": file_id,
            "endpoint": CHAT_URL,
            "completion_window": "24h",
            "metadata": {"rubricjudge_batch": str(local)},
        }
        # one try: a lost reply may hide a created batch; the caller looks before retrying
        got = await self.http.json("POST", "/batches", json=payload, tries=1)
        _id(got, "batch")
        return got

    async def find(
        self,
        file_id: str | None,
        requests: int = 0,
        since: float | None = None,
        known: set[str] | None = None,
        *,
        pages: int = 20,
    ) -> dict[str, Any] | None:
        """The batch made of ``file_id``, searched in the newest ``100 * pages`` batches.

        A file is uploaded once per batch row, so the batch that names it as its
        input is the one a lost create reply made: no guessing is needed.
        """
        if file_id is None:  # never uploaded, so never created
            return None
        after: str | None = None
        for _ in range(pages):
            params = {"limit": "100", **({"after": after} if after else {})}
            got = await self.http.json("GET", "/batches", params=params)
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
        return await self.http.json("GET", f"/batches/{batch_id}")

    def lines(self, file_id: str) -> AsyncIterator[bytes]:
        """Yield the lines of a file's content, read in chunks (a file may be large).

        Raises:
            RunError: the download failed (a resumed run downloads the file again).
        """
        return self.http.stream(f"{self.http.base}/files/{file_id}/content")

    # -- results -----------------------------------------------------------------
    def read(self, obj: Any, decision: Decision | None, body: str | None = None) -> LineResult:
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
        answer = response.get("body")
        if status != 200:
            reply = HTTPReply(int(status or 500), {}, json.dumps(answer).encode())
            e = status_error(reply)
            return LineResult(cid, error=str(e), category=e.category, retry=e.category in TRANSIENT)
        request = JudgeRequest(system="", user="", schema={}, decision=decision)
        try:
            got = self.judge._read(answer, 0.0, request)
        except JudgeError as e:
            return LineResult(cid, error=str(e), category=e.category)
        return LineResult(cid, response=batch_priced(self.reliable, got))


def _id(obj: Mapping[str, Any], what: str) -> str:
    value = obj.get("id")
    if not isinstance(value, str) or not value:
        raise RunError(f"OpenAI Batch API: the created {what} has no id: {dict(obj)!r}")
    return value
