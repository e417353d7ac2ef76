"""``anthropic/<model>``: Claude through the official ``anthropic`` SDK.

Needs the ``rubricjudge[anthropic]`` extra.

Structured output is a forced call of one tool whose input schema is the
request's schema, so the reply arrives as a parsed object. Prompt caching marks
two breakpoints: the system prompt, and the shared start of the user prompt
(``user[:shared_prefix_chars]``, sent as its own content block), so every
criterion about one submission reads the submission from the cache. With
``JudgeConfig.reasoning`` set, extended thinking is switched on and its text is
kept as ``reasoning``; the API does not allow forcing a tool while thinking, so
the tool is then offered (``tool_choice`` auto) and a plain-text JSON reply is
accepted too. This SDK's Messages API takes no temperature or seed; put them in
``extra_params`` if an endpoint accepts them. One call is one attempt (the SDK's
own retries are off): the reliability layer owns retries, limits and the cache.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
import weakref
from collections.abc import AsyncIterator
from typing import Any

from .._errors import ConfigError, JudgeError, JudgeErrorCategory, missing_extra
from .._model._reports import TokenUsage
from ._base import JudgeConfig, JudgeRequest, JudgeResponse
from ._fleet import single_base_url
from ._http import status_category
from ._media import DEFAULT_BUDGET, anthropic_content
from ._parse import parse_json_reply
from ._reliable import Provider

try:
    import anthropic
except ImportError:  # pragma: no cover - the extra is part of the dev install
    anthropic = None  # type: ignore[assignment]

__all__ = ["AnthropicJudge"]

_NO_KEY = "no-key-needed"
_DEFAULT_MAX_TOKENS = 1024
_EPHEMERAL = {"type": "ephemeral"}
_TOOL_NAME = re.compile(r"[^a-zA-Z0-9_-]")
_OFFICIAL = "https://api.anthropic.com"


def _category(error: Exception) -> JudgeErrorCategory:
    if isinstance(error, anthropic.APITimeoutError):
        return "timeout"
    if isinstance(error, anthropic.APIConnectionError):
        return "connection"
    if isinstance(error, anthropic.RateLimitError):
        return "rate_limit"
    if isinstance(error, anthropic.AuthenticationError | anthropic.PermissionDeniedError):
        return "auth"
    if isinstance(error, anthropic.APIStatusError):
        return status_category(error.status_code)  # 529 "overloaded" is a server error
    if isinstance(error, anthropic.APIResponseValidationError | ValueError):
        return "parse"
    return "unknown"


async def _closer(client: Any) -> AsyncIterator[None]:
    # asyncio.run() finalizes async generators before closing its loop, so the
    # client's connections are closed on the loop that opened them.
    try:
        yield
    finally:
        await client.close()


class AnthropicJudge:
    """One Claude model behind the Anthropic Messages API."""

    def __init__(self, model: str, config: JudgeConfig, *, client: Any = None) -> None:
        if anthropic is None:  # pragma: no cover
            raise missing_extra(
                "anthropic", "the anthropic judge needs the anthropic SDK, which is not installed"
            )
        if not model:
            raise ConfigError(
                "judge spec 'anthropic/' names no model; use e.g. 'anthropic/claude-sonnet-4-5'"
            )
        self.model = model
        self.config = config
        self.base_url: str | None = (
            single_base_url(config.base_url, "anthropic")
            or os.environ.get("ANTHROPIC_BASE_URL")
            or None
        )
        key = config.api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key and client is None and self.base_url is None:
            raise ConfigError(
                f"judge 'anthropic/{model}' needs an API key: set ANTHROPIC_API_KEY or pass "
                "api_key=... in Python; for another endpoint give --base-url / base_url=..."
            )
        self._api_key = key or _NO_KEY
        self._fixed = client
        self._clients: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[Any, AsyncIterator[None]]
        ] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"AnthropicJudge(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def name(self) -> str:
        """``anthropic/<model>``."""
        return f"anthropic/{self.model}"

    @property
    def provider(self) -> Provider:
        """Limits key, cache identity and price row of this endpoint."""
        return Provider.for_endpoint("anthropic", self.model, self.base_url, _OFFICIAL)

    async def client(self) -> Any:
        """The SDK client for the running event loop (one per loop, closed with it)."""
        if self._fixed is not None:
            return self._fixed
        loop = asyncio.get_running_loop()
        got = self._clients.get(loop)
        if got is None:
            client = anthropic.AsyncAnthropic(
                api_key=self._api_key,
                base_url=self.base_url,
                max_retries=0,
                timeout=self.config.timeout_s,
            )
            closer = _closer(client)
            await closer.__anext__()
            got = self._clients[loop] = (client, closer)
        return got[0]

    def tool_name(self, request: JudgeRequest) -> str:
        """The tool name for ``request.schema_name`` (the API allows ``[a-zA-Z0-9_-]{1,64}``)."""
        return _TOOL_NAME.sub("_", request.schema_name)[:64] or "judgment"

    def params(self, request: JudgeRequest) -> dict[str, Any]:
        """The ``messages.create`` arguments for ``request``."""
        cfg = self.config
        tool = self.tool_name(request)
        n = max(0, min(request.shared_prefix_chars, len(request.user)))
        if 0 < n < len(request.user):
            content: list[dict[str, Any]] = [
                {"type": "text", "text": request.user[:n], "cache_control": dict(_EPHEMERAL)},
                {"type": "text", "text": request.user[n:]},
            ]
        else:
            block: dict[str, Any] = {"type": "text", "text": request.user}
            if n:
                block["cache_control"] = dict(_EPHEMERAL)
            content = [block]
        if request.media:  # images and documents as blocks after the shared prefix
            media_budget = cfg.media_budget or DEFAULT_BUDGET
            content = anthropic_content(request, media_budget, dict(_EPHEMERAL) if n else None)
        max_tokens = request.max_tokens or cfg.max_tokens or _DEFAULT_MAX_TOKENS
        params: dict[str, Any] = {
            "model": self.model,
            "system": [{"type": "text", "text": request.system, "cache_control": dict(_EPHEMERAL)}],
            "messages": [{"role": "user", "content": content}],
            "tools": [
                {
                    "name": tool,
                    "description": "Record your judgment. Call this exactly once.",
                    "input_schema": dict(request.schema),
                }
            ],
            "tool_choice": {"type": "tool", "name": tool, "disable_parallel_tool_use": True},
            "timeout": cfg.timeout_s,
        }
        if cfg.reasoning:
            thinking = dict(cfg.reasoning)
            effort = thinking.pop("effort", None)
            if effort is not None:
                params["output_config"] = {"effort": effort}
            if thinking:
                thinking.setdefault("type", "enabled")
                params["thinking"] = thinking
                budget = thinking.get("budget_tokens")
                if isinstance(budget, int) and max_tokens <= budget:
                    max_tokens = budget + _DEFAULT_MAX_TOKENS
            # forcing a tool is refused while thinking; offer it instead
            params["tool_choice"] = {"type": "auto", "disable_parallel_tool_use": True}
        params["max_tokens"] = max_tokens
        if cfg.extra_params:
            params["extra_body"] = dict(cfg.extra_params)
        if cfg.extra_headers:
            params["extra_headers"] = dict(cfg.extra_headers)
        return params

    async def judge(self, request: JudgeRequest) -> JudgeResponse:
        """One Messages API call; the tool input (or JSON text) as the answer.

        Raises:
            JudgeError: with the category of the failure (one attempt, no retries).
        """
        start = time.perf_counter()
        client = await self.client()
        try:
            message = await client.messages.create(**self.params(request))
        except anthropic.AnthropicError as e:
            text = getattr(e, "api_message", None) or getattr(e, "message", None) or str(e)
            raise JudgeError(text or type(e).__name__, category=_category(e)) from e
        return self._read(message, self.tool_name(request), time.perf_counter() - start)

    def _read(self, message: Any, tool: str, latency: float) -> JudgeResponse:
        reasoning: list[str] = []
        texts: list[str] = []
        data: dict[str, Any] | None = None
        for block in message.content or []:
            kind = getattr(block, "type", None)
            if kind == "thinking":
                reasoning.append(block.thinking)
            elif kind == "text":
                texts.append(block.text)
            elif kind == "tool_use" and block.name == tool and data is None:
                data = dict(block.input) if isinstance(block.input, dict) else None
        stop = getattr(message, "stop_reason", None)
        text = "".join(texts)
        if data is not None:
            raw = json.dumps(data, ensure_ascii=False)
        elif stop == "refusal":
            raise JudgeError(f"the model refused: {text.strip()!r}", category="refusal")
        else:
            try:
                data = parse_json_reply(text)
            except ValueError as e:
                why = f"no {tool!r} tool call and {e}"
                if stop == "max_tokens":
                    why += " (cut off by max_tokens)"
                raise JudgeError(why, category="parse", raw_text=text) from None
            raw = text
        return JudgeResponse(
            data=data,
            raw_text=raw,
            usage=_usage(getattr(message, "usage", None)),
            latency_s=latency,
            reasoning="\n\n".join(reasoning) or None,
            model=getattr(message, "model", None) or self.model,
        )


def _usage(usage: Any) -> TokenUsage | None:
    if usage is None:
        return None
    fresh = usage.input_tokens or 0
    written = getattr(usage, "cache_creation_input_tokens", None) or 0
    read = getattr(usage, "cache_read_input_tokens", None) or 0
    out = usage.output_tokens or 0
    prompt = fresh + written + read  # Anthropic counts cached input apart; we count it in
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=out,
        total_tokens=prompt + out,
        cache_creation_input_tokens=written,
        cache_read_input_tokens=read,
    )
