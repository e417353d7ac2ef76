"""``openai/<model>``: any OpenAI-compatible chat-completions server, via the official SDK.

The base URL comes from the config or ``OPENAI_BASE_URL`` (vLLM, Ollama, the
llama.cpp server, OpenRouter ...), the key from the config or ``OPENAI_API_KEY``;
a server at an explicit base URL may need no key. Structured output uses
``response_format`` ``json_schema``; a server that rejects it (llama.cpp's does)
gets ``json_object`` plus the schema instead, and is remembered so later calls go
straight there. One call is one attempt (the SDK's own retries are off): the
reliability layer owns retries, limits and the cache.

The hot path is kept short, since at a few hundred calls per second the client's
CPU, not the server, bounds throughput: one SDK client per event loop and
endpoint, shared by every judge; the SDK's aiohttp transport when ``aiohttp`` is
installed (``pip install openai[aiohttp]``: about half the CPU of the default
one); the body serialised once and sent through the SDK's ``post`` (the SDK still
builds, authenticates, sends the request and maps HTTP errors), and the reply
read as plain JSON instead of validated into response models.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import re
import threading
import time
import weakref
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import urlparse

import openai

try:  # the HTTP library of the SDK: httpx2 in openai>=3, httpx before
    from httpx2 import Response as _Response
except ImportError:  # pragma: no cover
    from httpx import Response as _Response  # type: ignore[assignment]

from .._errors import ConfigError, JudgeError, JudgeErrorCategory
from .._reports import TokenUsage
from ._base import JudgeConfig, JudgeRequest, JudgeResponse
from ._parse import parse_json_reply
from ._reliable import Provider

__all__ = ["OpenAIJudge", "is_loopback"]

_NO_KEY = "no-key-needed"
_JSON_OBJECT_ONLY: set[str] = set()  # base URLs that rejected json_schema
_JSON_OBJECT_LOCK = threading.Lock()  # also guards _CLIENTS
_THINK = re.compile(r"^\s*<think>(.*?)</think>\s*", re.DOTALL)


def is_loopback(url: str) -> bool:
    """Whether ``url`` points at this machine (``localhost``, 127.x, ``::1``)."""
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _strict_ok(schema: Any) -> bool:
    """Whether OpenAI's strict mode accepts ``schema`` (closed objects, all keys required)."""
    if isinstance(schema, Mapping):
        if schema.get("type") == "object" or "properties" in schema:
            props = schema.get("properties", {})
            if schema.get("additionalProperties") is not False:
                return False
            if set(schema.get("required", [])) != set(props):
                return False
        return all(_strict_ok(v) for v in schema.values())
    if isinstance(schema, list):
        return all(_strict_ok(v) for v in schema)
    return True


def _category(error: Exception) -> JudgeErrorCategory:
    if isinstance(error, openai.APITimeoutError):
        # the aiohttp transport reports a dropped connection as a connect timeout
        return "connection" if _dropped(error) else "timeout"
    if isinstance(error, openai.APIConnectionError):
        return "connection"
    if isinstance(error, openai.RateLimitError):
        return "rate_limit"
    if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
        return "auth"
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        if status == 408:
            return "timeout"
        if status == 429:
            return "rate_limit"
        if status >= 500 or status == 409:
            return "server"
        return "bad_request"
    if isinstance(error, openai.APIResponseValidationError | ValueError):
        return "parse"  # the HTTP body itself was not the JSON the protocol promises
    return "unknown"


def _dropped(error: BaseException) -> bool:
    """Whether a transport "timeout" was really a connection the server closed."""
    cause: BaseException | None = error
    for _ in range(8):
        cause = cause.__cause__ or cause.__context__ if cause is not None else None
        if cause is None:
            return False
        kind = type(cause)
        if kind.__module__.startswith("aiohttp"):
            names = {k.__name__ for k in kind.__mro__}
            timed_out = "ServerTimeoutError" in names or "TimeoutError" in names
            return not timed_out and "ClientConnectionError" in names
    return False


def _rejects_json_schema(error: Exception) -> bool:
    if not isinstance(error, openai.BadRequestError | openai.UnprocessableEntityError):
        return False
    text = str(error).lower()
    return "json_schema" in text or "response_format" in text


_ClientKey = tuple[str | None, str, float]
# Per event loop, one client per (base URL, key, timeout), shared by judges and held
# as long as the loop lives: a client dropped with its judge would be finalized by
# a task that a closing loop cancels, leaking its sockets.
_CLIENTS: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[_ClientKey, tuple[openai.AsyncOpenAI, AsyncIterator[None]]]
] = weakref.WeakKeyDictionary()


async def _closer(client: openai.AsyncOpenAI) -> AsyncIterator[None]:
    # asyncio.run() finalizes async generators before closing its loop, so the
    # client's connections are closed on the loop that opened them.
    try:
        yield
    finally:
        await client.close()


class OpenAIJudge:
    """One model behind an OpenAI-compatible chat-completions endpoint."""

    def __init__(
        self, model: str, config: JudgeConfig, *, client: openai.AsyncOpenAI | None = None
    ) -> None:
        if not model:
            raise ConfigError("judge spec 'openai/' names no model; use e.g. 'openai/gpt-4.1-mini'")
        self.model = model
        self.config = config
        env_url = os.environ.get("OPENAI_BASE_URL") or None
        self.base_url: str | None = config.base_url or env_url
        key = config.api_key or os.environ.get("OPENAI_API_KEY")
        if not key and client is None:
            if self.base_url is None:
                raise ConfigError(
                    f"judge 'openai/{model}' needs an API key: set OPENAI_API_KEY or pass "
                    "api_key=...; for a local server pass base_url=... (no key needed)"
                )
            key = _NO_KEY
        self._api_key = key or _NO_KEY
        self._fixed = client
        self._last: tuple[weakref.ref[asyncio.AbstractEventLoop], openai.AsyncOpenAI] | None = None
        self._strict_seen: dict[int, tuple[Mapping[str, Any], bool]] = {}
        headers = {"Content-Type": "application/json", **config.extra_headers}
        self._options: Any = {"timeout": config.timeout_s, "headers": headers}

    def __repr__(self) -> str:
        return f"OpenAIJudge(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def name(self) -> str:
        """``openai/<model>``."""
        return f"openai/{self.model}"

    @property
    def provider(self) -> Provider:
        """Limits key, cache identity and price row of this endpoint."""
        return Provider.for_endpoint(
            "openai", self.model, self.base_url, "https://api.openai.com/v1"
        )

    async def client(self) -> openai.AsyncOpenAI:
        """The SDK client for the running event loop (one per loop, closed with it)."""
        if self._fixed is not None:
            return self._fixed
        loop = asyncio.get_running_loop()
        last = self._last
        if last is not None and last[0]() is loop:
            return last[1]  # the hot path: same loop as the previous call
        with _JSON_OBJECT_LOCK:
            clients = _CLIENTS.setdefault(loop, {})
        key = (self.base_url, self._api_key, self.config.timeout_s)
        got = clients.get(key)
        if got is None:
            client = openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self.base_url,
                max_retries=0,
                timeout=self.config.timeout_s,
                http_client=_http_client(self.config.timeout_s),
            )
            closer = _closer(client)
            await closer.__anext__()
            got = clients[key] = (client, closer)
        self._last = (weakref.ref(loop), got[0])
        return got[0]

    def _params(self, request: JudgeRequest, json_schema: bool) -> dict[str, Any]:
        """The request body: what ``chat.completions.create`` would send."""
        cfg = self.config
        fmt: dict[str, Any]
        if json_schema:
            spec = {
                "name": request.schema_name,
                "schema": request.schema,
                "strict": self._strict(request.schema),
            }
            fmt = {"type": "json_schema", "json_schema": spec}
        else:
            fmt = {"type": "json_object", "schema": request.schema}
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.user},
            ],
            "response_format": fmt,
        }
        temperature = request.temperature if request.temperature is not None else cfg.temperature
        if temperature is not None:
            params["temperature"] = temperature
        seed = request.seed if request.seed is not None else cfg.seed
        if seed is not None:
            params["seed"] = seed
        max_tokens = request.max_tokens if request.max_tokens is not None else cfg.max_tokens
        if max_tokens is not None:
            # api.openai.com's reasoning models refuse max_tokens; other servers know only it
            field = "max_completion_tokens" if self.base_url is None else "max_tokens"
            params[field] = max_tokens
        extra = dict(cfg.extra_params)  # as the SDK's extra_body: merged over the rest
        if cfg.reasoning:
            rest = dict(cfg.reasoning)
            effort = rest.pop("effort", None) or rest.pop("reasoning_effort", None)
            if effort is not None:
                params["reasoning_effort"] = effort
            if rest:
                extra["reasoning"] = rest
        params.update(extra)
        return params

    def _strict(self, schema: Mapping[str, Any]) -> bool:
        # one grader sends the same few schemas thousands of times: decide each once
        got = self._strict_seen.get(id(schema))
        if got is None or got[0] is not schema:
            if len(self._strict_seen) > 256:
                self._strict_seen.clear()
            got = self._strict_seen[id(schema)] = (schema, _strict_ok(schema))
        return got[1]

    async def judge(self, request: JudgeRequest) -> JudgeResponse:
        """One chat-completions call; the reply parsed into an object.

        Raises:
            JudgeError: with the category of the failure (one attempt, no retries).
        """
        start = time.perf_counter()
        client = await self.client()
        url_key = self.base_url or "default"
        json_schema = url_key not in _JSON_OBJECT_ONLY
        while True:
            body = json.dumps(self._params(request, json_schema), default=_plain).encode()
            try:
                # the SDK's own request path, minus its typed-params transform and
                # response models (most of its CPU per call)
                response = await client.post(
                    "/chat/completions", cast_to=_Response, content=body, options=self._options
                )
                completion = json.loads(response.content)
                break
            except Exception as e:  # the SDK's errors, mapped onto ours
                if json_schema and _rejects_json_schema(e):
                    with _JSON_OBJECT_LOCK:
                        _JSON_OBJECT_ONLY.add(url_key)
                    json_schema = False
                    continue
                category = _category(e)
                message = getattr(e, "message", None) or str(e) or type(e).__name__
                if isinstance(e, ValueError):
                    message = f"the server's reply is not JSON: {e}"
                elif category == "connection" and isinstance(e, openai.APITimeoutError):
                    message = "the server closed the connection without replying"
                raise JudgeError(message, category=category) from e
        return self._read(completion, time.perf_counter() - start)

    def _read(self, completion: Any, latency: float) -> JudgeResponse:
        choices = completion.get("choices") if isinstance(completion, dict) else None
        if not choices or not isinstance(choices, list):
            raise JudgeError("the server returned no choices", category="server")
        choice = choices[0] if isinstance(choices[0], dict) else {}
        message = choice.get("message")
        if not isinstance(message, dict):
            message = {}
        refusal = message.get("refusal")
        if refusal:
            raise JudgeError(f"the model refused: {refusal}", category="refusal")
        text = message.get("content") or ""
        if not isinstance(text, str):
            text = _as_text(text) or ""
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        think = _THINK.match(text)
        if think is not None:
            reasoning = reasoning or think.group(1).strip()
            text = text[think.end() :]
        finish = choice.get("finish_reason")
        if not text and finish == "content_filter":
            raise JudgeError("the reply was withheld by a content filter", category="refusal")
        try:
            data = parse_json_reply(text)
        except ValueError as e:
            why = str(e)
            if finish == "length":
                why += " (cut off by max_tokens)"
            raise JudgeError(why, category="parse", raw_text=text) from None
        model = completion.get("model")
        return JudgeResponse(
            data=data,
            raw_text=text,
            usage=_usage(completion.get("usage")),
            latency_s=latency,
            reasoning=reasoning if isinstance(reasoning, str) else _as_text(reasoning),
            model=model if isinstance(model, str) and model else self.model,
        )


def _http_client(timeout: float) -> Any:
    """The SDK's aiohttp-backed client when ``aiohttp`` is installed, else its default."""
    try:
        import aiohttp  # noqa: F401

        return openai.DefaultAioHttpClient(timeout=timeout)
    except Exception:  # no aiohttp, or an SDK without its extra: the default transport
        return None


def _usage(usage: Any) -> TokenUsage | None:
    if not isinstance(usage, dict):
        return None
    details = usage.get("prompt_tokens_details")
    cached = (details.get("cached_tokens") if isinstance(details, dict) else None) or 0
    prompt = usage.get("prompt_tokens") or 0
    completion = usage.get("completion_tokens") or 0
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=usage.get("total_tokens") or prompt + completion,
        cache_read_input_tokens=cached,
    )


def _plain(value: Any) -> Any:
    """JSON for the read-only mappings and tuples a schema may be built from."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _as_text(value: Any) -> str | None:
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False)
