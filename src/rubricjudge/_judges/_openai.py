"""``openai/<model>``: any OpenAI-compatible chat-completions server.

The base URL comes from the config or ``OPENAI_BASE_URL`` (vLLM, Ollama, the
llama.cpp server, OpenRouter, Azure's ``/openai/v1`` ...), the key from the
config or ``OPENAI_API_KEY``; a server at an explicit base URL may need no key.
Several base URLs (a list, or URLs separated by commas) make a fleet of servers
of one model: each call goes to the least-loaded healthy one (see ``_fleet``).
``OPENAI_ORG_ID`` and ``OPENAI_PROJECT_ID`` are sent as the official SDK sends
them. Structured output uses ``response_format`` ``json_schema``; a server that
rejects it (llama.cpp's does) gets ``json_object`` plus the schema instead, and
is remembered so later calls go straight there. One call is one attempt: the
reliability layer owns retries, limits and the cache.

The protocol is spoken over ``_http`` (aiohttp) rather than through the ``openai``
SDK: one chat-completions POST needs none of the SDK's typed params, response models
and transport layers, which cost most of a call's CPU
(``benchmarks/batch_throughput.py`` measures both in one run).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Mapping
from typing import Any

from .._errors import ConfigError, JudgeError
from .._model._reports import TokenUsage
from ._base import JudgeConfig, JudgeRequest, JudgeResponse
from ._fleet import EndpointStats, Fleet, parse_base_urls
from ._http import HTTPReply, merge_headers, status_error
from ._logprobs import decision_probabilities
from ._media import DEFAULT_BUDGET, openai_content
from ._parse import parse_json_reply
from ._provider_limits import DEFAULT_CONCURRENCY
from ._reliable import Provider
from ._schema_check import schema_accepts

__all__ = ["OFFICIAL_URL", "OpenAIJudge"]

OFFICIAL_URL = "https://api.openai.com/v1"
_NO_KEY = "no-key-needed"
_JSON_OBJECT_ONLY: set[str] = set()  # base URLs that rejected json_schema
_NO_LOGPROBS: set[tuple[str, str]] = set()  # (base URL, model) that rejected logprobs
_JSON_OBJECT_LOCK = threading.Lock()
TOP_LOGPROBS = 20
"""Alternatives asked per token when a request names a decision (the API's maximum)."""
_THINK = re.compile(r"^\s*<think>(.*?)</think>\s*", re.DOTALL)


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


def _rejects_logprobs(reply: HTTPReply, error: JudgeError) -> bool:
    return reply.status in (400, 422) and "logprobs" in str(error).lower()


def _rejects_json_schema(reply: HTTPReply, error: JudgeError) -> bool:
    if reply.status not in (400, 422):
        return False
    text = str(error).lower()
    return "json_schema" in text or "response_format" in text


class OpenAIJudge:
    """One model behind an OpenAI-compatible chat-completions endpoint."""

    def __init__(self, model: str, config: JudgeConfig) -> None:
        if not model:
            raise ConfigError("judge spec 'openai/' names no model; use e.g. 'openai/gpt-4.1-mini'")
        self.model = model
        self.config = config
        raw = config.base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.base_url: str | None = None
        self.base_urls: tuple[str, ...] = ()
        if isinstance(raw, str) and "," not in raw:  # one server, as it always was
            self.base_url = raw
            self.base_urls = (raw.strip().rstrip("/"),)
        elif raw:
            what = "base_url" if config.base_url else "OPENAI_BASE_URL"
            self.base_urls = parse_base_urls(raw, what)
            self.base_url = ",".join(self.base_urls)
        key = config.api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if self.base_url is None:
                raise ConfigError(
                    f"judge 'openai/{model}' needs an API key: set OPENAI_API_KEY (or api_key=... "
                    "in Python); for a local server give its URL with --base-url / base_url= "
                    "(no key needed)"
                )
            key = _NO_KEY
        urls = [u + "/chat/completions" for u in self.base_urls or (OFFICIAL_URL,)]
        self.url = urls[0]
        headers = {
            "Authorization": f"Bearer {key}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        }
        if key == _NO_KEY and any("@" in u.split("//", 1)[-1].split("/", 1)[0] for u in urls):
            del headers["Authorization"]  # user:pass@ in the base URL: HTTP basic auth instead
        for header, variable in (
            ("OpenAI-Organization", "OPENAI_ORG_ID"),
            ("OpenAI-Project", "OPENAI_PROJECT_ID"),
        ):
            if os.environ.get(variable):
                headers[header] = os.environ[variable]
        self.headers = merge_headers(headers, config.extra_headers)
        self.fleet = Fleet(urls, self.headers)
        self._strict_seen: dict[int, tuple[Mapping[str, Any], bool]] = {}

    def __repr__(self) -> str:
        return f"OpenAIJudge(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def name(self) -> str:
        """``openai/<model>``."""
        return f"openai/{self.model}"

    @property
    def provider(self) -> Provider:
        """Limits key, cache identity and price row of this endpoint (or fleet)."""
        if len(self.base_urls) < 2:
            return Provider.for_endpoint("openai", self.model, self.base_url, OFFICIAL_URL)
        # one model on every server: an answer is the same whichever server gave it
        return Provider(
            backend="openai",
            model=self.model,
            key=f"openai|{self.base_url}",
            identity={"base_url": sorted(self.base_urls)},
        )

    @property
    def default_concurrency(self) -> int | None:
        """Calls in flight when the config does not say: the usual limit per server of a fleet."""
        return DEFAULT_CONCURRENCY * len(self.base_urls) if len(self.base_urls) > 1 else None

    def endpoint_stats(self) -> dict[str, EndpointStats]:
        """Per base URL: requests sent, failed, and latency (see :class:`EndpointStats`)."""
        return self.fleet.stats()

    def _params(
        self, request: JudgeRequest, json_schema: bool, logprobs: bool = False
    ) -> dict[str, Any]:
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
        if logprobs:  # the decision's probabilities are read from these
            params["logprobs"] = True
            params["top_logprobs"] = TOP_LOGPROBS
        extra = dict(cfg.extra_params)  # as the SDK's extra_body: merged over the rest
        if cfg.reasoning:
            rest = dict(cfg.reasoning)
            effort = rest.pop("effort", None) or rest.pop("reasoning_effort", None)
            if effort is not None:
                params["reasoning_effort"] = effort
            if rest:
                extra["reasoning"] = rest
        params.update(extra)
        if request.media:  # images and documents: content parts after the shared prefix
            budget = cfg.media_budget or DEFAULT_BUDGET
            params["messages"][1]["content"] = openai_content(request, budget)
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
        url_key = self.base_url or OFFICIAL_URL
        json_schema = url_key not in _JSON_OBJECT_ONLY
        logprobs = request.decision is not None and (url_key, self.model) not in _NO_LOGPROBS
        asked: set[int] = set()  # endpoints of a fleet whose reply could not be read
        while True:
            params = self._params(request, json_schema, logprobs)
            body = json.dumps(params, default=_plain).encode()
            reply = await self.fleet.post(body, timeout_s=self.config.timeout_s, avoid=asked)
            if not 200 <= reply.status < 300:
                error = status_error(reply)
                if json_schema and _rejects_json_schema(reply, error):
                    with _JSON_OBJECT_LOCK:
                        _JSON_OBJECT_ONLY.add(url_key)
                    json_schema = False
                    continue
                if logprobs and _rejects_logprobs(reply, error):  # o-series models, say
                    with _JSON_OBJECT_LOCK:
                        _NO_LOGPROBS.add((url_key, self.model))
                    logprobs = False
                    continue
                raise error
            got: JudgeResponse | JudgeError
            try:
                got = self._read(reply.json(), time.perf_counter() - start, request)
            except JudgeError as e:
                if e.category not in ("parse", "server"):
                    raise
                got = e  # a 200 that says nothing readable
            else:
                if not request.schema or schema_accepts(request.schema, got.data):
                    return got
            # not read, or not the request's schema: a failure of the endpoint that sent it
            self.fleet.unreadable(reply)
            asked.add(reply.endpoint)
            if self.fleet.healthy_besides(asked):
                continue  # the same question to another healthy endpoint, same attempt
            if isinstance(got, JudgeError):
                raise got
            return got  # the grader decides what it can still read

    def _read(
        self, completion: Any, latency: float, request: JudgeRequest | None = None
    ) -> JudgeResponse:
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
        probabilities = None
        if request is not None and request.decision is not None:
            probabilities = decision_probabilities(choice.get("logprobs"), text, request.decision)
        return JudgeResponse(
            data=data,
            raw_text=text,
            usage=_usage(completion.get("usage")),
            latency_s=latency,
            reasoning=reasoning if isinstance(reasoning, str) else _as_text(reasoning),
            model=model if isinstance(model, str) and model else self.model,
            probabilities=probabilities,
        )


def _count(value: Any) -> int | None:
    """A token count as a server reports it, or None when it is no count at all."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None if value is not None else 0
    if not 0 <= value < 10**15 or value != value:  # negative, absurd or NaN
        return None
    return int(value)


def _usage(usage: Any) -> TokenUsage | None:
    """The reply's usage; None (unknown) when it is missing or not numbers.

    Bad usage never voids a valid answer: the answer stands and its usage is unknown.
    """
    if not isinstance(usage, dict):
        return None
    details = usage.get("prompt_tokens_details")
    cached = _count(details.get("cached_tokens")) if isinstance(details, dict) else 0
    prompt, completion = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
    total = _count(usage.get("total_tokens"))
    if prompt is None or completion is None or total is None or cached is None:
        return None
    # model_validate of a dict: checked, and cheaper than model_construct (pydantic 2)
    return TokenUsage.model_validate(
        {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": total or prompt + completion,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": cached,
        }
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
