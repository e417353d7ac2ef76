"""``litellm/<model>``: any provider LiteLLM knows, for users who want its list.

LiteLLM is an optional extra (``rubricjudge[litellm]``) and is imported only when a
``litellm/...`` judge is built, never by ``import rubricjudge``. The model string
after ``litellm/`` is LiteLLM's own (``litellm/bedrock/anthropic.claude-3-haiku``,
``litellm/gemini/gemini-2.0-flash``...). Structured output asks for
``json_schema``; a provider that rejects it gets ``json_object`` with the schema
in the system prompt. LiteLLM's own retries are off: the reliability layer owns
retries, limits and the cache.
"""

from __future__ import annotations

import importlib
import json
import time
from typing import Any

from .._errors import ConfigError, JudgeError, JudgeErrorCategory, missing_extra
from .._model._reports import TokenUsage
from ._base import JudgeConfig, JudgeRequest, JudgeResponse
from ._fleet import single_base_url
from ._media import DEFAULT_BUDGET, openai_content
from ._parse import parse_json_reply
from ._reliable import Provider

__all__ = ["LiteLLMJudge"]

_BY_NAME: dict[str, JudgeErrorCategory] = {
    "Timeout": "timeout",
    "APIConnectionError": "connection",
    "RateLimitError": "rate_limit",
    "AuthenticationError": "auth",
    "PermissionDeniedError": "auth",
    "ContentPolicyViolationError": "refusal",
    "ContextWindowExceededError": "bad_request",
    "BadRequestError": "bad_request",
    "NotFoundError": "bad_request",
    "UnprocessableEntityError": "bad_request",
    "ServiceUnavailableError": "server",
    "InternalServerError": "server",
    "APIResponseValidationError": "parse",
}


def _category(error: BaseException) -> JudgeErrorCategory:
    """LiteLLM's exception classes (by name, most specific first), else the status code."""
    for cls in type(error).__mro__:
        if cls.__name__ in _BY_NAME:
            return _BY_NAME[cls.__name__]
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        if status in (408, 504):
            return "timeout"
        if status == 429:
            return "rate_limit"
        if status in (401, 403):
            return "auth"
        return "server" if status >= 500 else "bad_request"
    return "unknown"


def _rejects_schema(error: BaseException) -> bool:
    text = str(error).lower()
    return _category(error) == "bad_request" and (
        "json_schema" in text or "response_format" in text
    )


class LiteLLMJudge:
    """One model reached through ``litellm.acompletion``."""

    def __init__(self, model: str, config: JudgeConfig) -> None:
        if not model:
            raise ConfigError(
                "judge spec 'litellm/' names no model; use e.g. 'litellm/gemini/gemini-2.0-flash'"
            )
        try:
            self._litellm: Any = importlib.import_module("litellm")
        except ImportError:
            raise missing_extra(
                "litellm", f"judge 'litellm/{model}' needs LiteLLM, which is not installed"
            ) from None
        self.model = model
        self.config = config
        self.base_url = single_base_url(config.base_url, "litellm")
        self._json_object_only = False

    def __repr__(self) -> str:
        return f"LiteLLMJudge(model={self.model!r})"

    @property
    def name(self) -> str:
        """``litellm/<model>``."""
        return f"litellm/{self.model}"

    @property
    def provider(self) -> Provider:
        """Limits key and cache identity; prices by LiteLLM's provider prefix when known."""
        url = self.base_url
        vendor = self.model.partition("/")[0] if "/" in self.model else None
        return Provider(
            backend="litellm",
            model=self.model.partition("/")[2] if vendor else self.model,
            key=f"litellm|{vendor or ''}|{url or ''}",
            identity={"base_url": url},
            price_provider=vendor if url is None else None,
            price_url=url,
        )

    def params(self, request: JudgeRequest, json_schema: bool = True) -> dict[str, Any]:
        """The ``litellm.acompletion`` arguments for ``request``."""
        cfg = self.config
        system = request.system
        fmt: dict[str, Any]
        if json_schema:
            spec = {"name": request.schema_name, "schema": dict(request.schema), "strict": False}
            fmt = {"type": "json_schema", "json_schema": spec}
        else:
            fmt = {"type": "json_object"}
            system += "\n\nReply with one JSON object matching this JSON Schema:\n" + json.dumps(
                request.schema
            )
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": request.user},
            ],
            "response_format": fmt,
            "timeout": cfg.timeout_s,
            "num_retries": 0,
        }
        if request.media:  # LiteLLM takes OpenAI's content parts for every provider
            budget = cfg.media_budget or DEFAULT_BUDGET
            params["messages"][1]["content"] = openai_content(request, budget)
        for key, value in (
            ("temperature", _pick(request.temperature, cfg.temperature)),
            ("seed", _pick(request.seed, cfg.seed)),
            ("max_tokens", _pick(request.max_tokens, cfg.max_tokens)),
            ("api_base", self.base_url),
            ("api_key", cfg.api_key),
        ):
            if value is not None:
                params[key] = value
        if cfg.reasoning:
            rest = dict(cfg.reasoning)
            effort = rest.pop("effort", None) or rest.pop("reasoning_effort", None)
            if effort is not None:
                params["reasoning_effort"] = effort
            if rest:
                params["thinking"] = rest
        if cfg.extra_headers:
            params["extra_headers"] = dict(cfg.extra_headers)
        params.update(cfg.extra_params)
        return params

    async def judge(self, request: JudgeRequest) -> JudgeResponse:
        """One ``litellm.acompletion`` call; the reply parsed into an object.

        Raises:
            JudgeError: with the category of the failure (one attempt, no retries).
        """
        start = time.perf_counter()
        json_schema = not self._json_object_only
        while True:
            try:
                reply = await self._litellm.acompletion(**self.params(request, json_schema))
                break
            except Exception as e:  # LiteLLM's errors, mapped onto ours
                if json_schema and _rejects_schema(e):
                    self._json_object_only = json_schema = False
                    continue
                message = getattr(e, "message", None) or str(e) or type(e).__name__
                raise JudgeError(str(message), category=_category(e)) from e
        return self._read(reply, time.perf_counter() - start)

    def _read(self, reply: Any, latency: float) -> JudgeResponse:
        choices = _get(reply, "choices") or []
        if not choices:
            raise JudgeError("the provider returned no choices", category="server")
        message = _get(choices[0], "message")
        finish = _get(choices[0], "finish_reason")
        text = _get(message, "content") or ""
        reasoning = _get(message, "reasoning_content")
        if not text and finish == "content_filter":
            raise JudgeError("the reply was withheld by a content filter", category="refusal")
        try:
            data = parse_json_reply(text)
        except ValueError as e:
            why = str(e) + (" (cut off by max_tokens)" if finish == "length" else "")
            raise JudgeError(why, category="parse", raw_text=text) from None
        return JudgeResponse(
            data=data,
            raw_text=text,
            usage=_usage(_get(reply, "usage")),
            latency_s=latency,
            reasoning=reasoning if isinstance(reasoning, str) and reasoning else None,
            model=_get(reply, "model") or self.model,
        )


def _get(obj: Any, key: str) -> Any:
    """``obj[key]`` or ``obj.key``: LiteLLM's response objects allow both, dicts only one."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def _usage(usage: Any) -> TokenUsage | None:
    if usage is None:
        return None
    prompt = int(_get(usage, "prompt_tokens") or 0)
    completion = int(_get(usage, "completion_tokens") or 0)
    details = _get(usage, "prompt_tokens_details")
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=int(_get(usage, "total_tokens") or prompt + completion),
        cache_creation_input_tokens=int(_get(usage, "cache_creation_input_tokens") or 0),
        cache_read_input_tokens=int(_get(details, "cached_tokens") or 0),
    )


def _pick(first: Any, second: Any) -> Any:
    return first if first is not None else second
