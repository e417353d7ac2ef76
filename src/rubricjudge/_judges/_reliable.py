"""The layer that makes any judge backend dependable.

:class:`ReliableJudge` wraps a backend and adds, in this order: the response
cache (a replay is ``cached=True`` and costs 0.0), the provider's shared limits
(concurrency, requests and tokens per minute), retries of transient failures
(exponential backoff with full jitter, ``Retry-After`` honoured), separately
bounded re-asks of unparseable replies, and the cost from the price table. After
the last attempt the failure is raised as a :class:`JudgeError` carrying its
category and the number of attempts; it never becomes a verdict.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from .._errors import JudgeError
from .._model._reports import TokenUsage
from ._base import Judge, JudgeConfig, JudgeRequest, JudgeResponse, with_changes
from ._cache import ResponseCache, cache_key, open_cache
from ._cost import check_prices, cost_of
from ._provider_limits import ProviderLimits, limits_for
from ._retry import TRANSIENT, Backoff, retry_after_of
from ._schema_check import schema_accepts

if TYPE_CHECKING:
    from ._fleet import EndpointStats

__all__ = ["Provider", "ReliableJudge", "make_reliable"]

_REASK = (
    "\n\n(Your previous reply could not be read as one JSON object matching the schema. "
    "Reply with only that JSON object.)"
)


@dataclass(frozen=True)
class Provider:
    """Who answers a judge's calls, for limits, cache keys and prices.

    ``key`` names the shared limits (backend plus base URL). ``identity`` is what
    besides the request decides the answer (the base URL, say), hashed into cache
    keys; it must hold nothing secret. ``price_provider``/``price_url`` select the
    row of the price table.
    """

    backend: str
    model: str
    key: str
    identity: Mapping[str, Any]
    price_provider: str | None = None
    price_url: str | None = None

    @classmethod
    def for_endpoint(cls, backend: str, model: str, url: str | None, official: str) -> Provider:
        """The provider of an HTTP endpoint; the official one (``official`` URL) has prices."""
        is_official = url is None or urlparse(url).hostname == urlparse(official).hostname
        return cls(
            backend=backend,
            model=model,
            key=f"{backend}|{url or official}",
            identity={"base_url": url},
            price_provider=backend if is_official else None,
            price_url=None if is_official else url,
        )


class ReliableJudge:
    """Cache, limits, retries and cost around any :class:`Judge` backend."""

    def __init__(
        self,
        inner: Judge,
        config: JudgeConfig,
        provider: Provider,
        *,
        cache: bool | str | None = None,
        limited: bool = True,
        backoff: Backoff | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        check_prices(config.prices)
        self.inner = inner
        self.config = config
        self.provider = provider
        self.backoff = backoff or Backoff()
        self.sleep = sleep or asyncio.sleep
        setting = config.cache if cache is None else cache
        self._cache_setting = setting
        self._cache: ResponseCache | None = None
        self._limited = limited
        self._limits: ProviderLimits | None = None

    @property
    def name(self) -> str:
        """The wrapped judge's id."""
        return self.inner.name

    @property
    def preferred_verdict_method(self) -> str | None:
        """The wrapped backend's preferred reply layout for criteria, if it has one."""
        return getattr(self.inner, "preferred_verdict_method", None)

    @property
    def default_calibration(self) -> Any:
        """The wrapped backend's own calibration file, if it ships one."""
        return getattr(self.inner, "default_calibration", None)

    @property
    def limits(self) -> ProviderLimits | None:
        """The provider's shared limits (None when this judge is not limited)."""
        if not self._limited:
            return None
        if self._limits is None:
            cfg = self.config
            concurrency = cfg.concurrency
            if concurrency is None:  # a fleet of N servers takes N times one server's default
                concurrency = getattr(self.inner, "default_concurrency", None)
            self._limits = limits_for(
                self.provider.key, concurrency, cfg.requests_per_minute, cfg.tokens_per_minute
            )
        return self._limits

    def endpoint_stats(self) -> dict[str, EndpointStats]:
        """Per base URL of the wrapped judge's servers: requests sent, failed, and latency.

        Empty for a backend that does not count its endpoints (only ``openai/`` does).
        """
        stats = getattr(self.inner, "endpoint_stats", None)
        return stats() if callable(stats) else {}

    def _cache_for(self, request: JudgeRequest) -> ResponseCache | None:
        if self._cache_setting is False:
            return None
        temperature = _pick(request.temperature, self.config.temperature)
        seed = _pick(request.seed, self.config.seed)
        if temperature != 0 and seed is None:
            return None  # sampled answers (ensemble votes, say) must not be replayed
        if self._cache is None:
            self._cache = open_cache(self._cache_setting)
        return self._cache

    def key_for(self, request: JudgeRequest) -> str:
        """The cache key of ``request``: everything that decides the answer, no secrets."""
        cfg = self.config
        parts: dict[str, Any] = {
            "v": 1,
            "backend": self.provider.backend,
            "model": self.provider.model,
            "identity": dict(self.provider.identity),
            "system": request.system,
            "user": request.user,
            "schema": request.schema,
            "schema_name": request.schema_name,
            "temperature": _pick(request.temperature, cfg.temperature),
            "seed": _pick(request.seed, cfg.seed),
            "max_tokens": _pick(request.max_tokens, cfg.max_tokens),
            "extra_params": dict(cfg.extra_params),
            "reasoning": dict(cfg.reasoning) if cfg.reasoning is not None else None,
        }
        if request.decision is not None:  # absent otherwise: older cache entries still hit
            parts["decision"] = [request.decision.key, list(request.decision.values)]
        if request.features:  # likewise: a request without features keeps its old key
            parts["features"] = True
        if request.media:  # the bytes decide, not the names: the same image is the same key
            parts["media"] = [[p.owner + p.kind, p.sha256] for p in request.media]
            if cfg.media_budget is not None:
                parts["media_budget"] = repr(cfg.media_budget)
        return cache_key(parts)

    async def judge(self, request: JudgeRequest) -> JudgeResponse:
        """Answer ``request`` through cache, limits and retries.

        Raises:
            JudgeError: after the last attempt; ``category`` and ``attempts`` say why.
        """
        start = time.perf_counter()
        cache = self._cache_for(request)
        key = self.key_for(request) if cache is not None else None
        if cache is not None and key is not None and not self.config.refresh_cache:
            hit = cache.get(key)
            # only an answer to the question is replayed; a stored bad one is asked again
            if (
                hit is not None
                and schema_accepts(request.schema, hit["data"])
                and (hit.get("features") is not None or not request.features)
            ):
                return _replay(hit, time.perf_counter() - start)
        response, attempts, queued = await self._attempts(request)
        cost = response.cost
        if cost is None:
            cost = cost_of(
                response.usage,
                provider=self.provider.price_provider,
                model=self.provider.model,
                api_url=self.provider.price_url,
                prices=self.config.prices,
            )
        # the call's own time: what it spent waiting for a limit or a busy model is apart
        queued += response.queue_s
        latency = max(time.perf_counter() - start - queued, 0.0)
        response = with_changes(
            response, cost=cost, latency_s=latency, queue_s=queued, attempts=attempts
        )
        if cache is not None and key is not None and schema_accepts(request.schema, response.data):
            cache.put(
                key,
                judge=self.name,
                model=response.model,
                data=response.data,
                raw_text=response.raw_text,
                reasoning=response.reasoning,
                usage=response.usage.model_dump() if response.usage is not None else None,
                probabilities=response.probabilities,
                features=response.features,
            )
        return response

    async def _attempts(self, request: JudgeRequest) -> tuple[JudgeResponse, int, float]:
        """The answer, the attempts it took and the seconds spent waiting for limits."""
        limits = self.limits
        est = (len(request.system) + len(request.user)) // 4 + (
            _pick(request.max_tokens, self.config.max_tokens) or 256
        )
        transient = parse = attempts = 0
        queued = 0.0
        current = request
        while True:
            attempts += 1
            try:
                if limits is None:
                    response = await self.inner.judge(current)
                else:
                    waiting = time.perf_counter()
                    async with limits.slot(est, self.sleep):
                        queued += time.perf_counter() - waiting
                        response = await self.inner.judge(current)
                    usage = response.usage
                    limits.settle(est, usage.total_tokens if usage is not None else None)
                return response, attempts, queued
            except JudgeError as e:
                if e.category in TRANSIENT and transient < self.config.max_retries:
                    wait = self.backoff.delay(transient, e)
                    transient += 1
                    if limits is not None and retry_after_of(e) is not None:
                        limits.pause(wait)  # the whole provider backs off, not just this call
                    await self.sleep(wait)
                    continue
                if e.category == "parse" and parse < self.config.max_parse_retries:
                    parse += 1
                    current = replace(request, user=request.user + _REASK)
                    continue
                detail = str(e).split(": ", 1)[-1]
                tries = "attempt" if attempts == 1 else "attempts"
                raise JudgeError(
                    f"{self.name}: {detail} (after {attempts} {tries})",
                    category=e.category,
                    attempts=attempts,
                    raw_text=e.raw_text,
                ) from e


def _pick(first: Any, second: Any) -> Any:
    return first if first is not None else second


def _replay(hit: Mapping[str, Any], latency: float) -> JudgeResponse:
    usage = TokenUsage(**hit["usage"]) if hit.get("usage") else None
    return JudgeResponse(
        data=dict(hit["data"]),
        raw_text=hit["raw_text"],
        usage=usage,
        cost=0.0,
        latency_s=latency,
        cached=True,
        reasoning=hit.get("reasoning"),
        model=hit.get("model") or "",
        attempts=0,
        probabilities=hit.get("probabilities"),
        features=hit.get("features"),
    )


def make_reliable(judge: Judge, config: JudgeConfig, backend: str, model: str) -> Judge:
    """``judge`` inside the reliability layer, as the registry hands judges out.

    A backend that exposes a :class:`Provider` as ``.provider`` gets limits keyed
    by it; others are keyed by ``backend`` and the config's base URL. The fake and
    callable judges are neither cached nor limited unless the config asks for a
    limit; their replies pass through unchanged.
    """
    if isinstance(judge, ReliableJudge):
        return judge
    provider = getattr(judge, "provider", None)
    if not isinstance(provider, Provider):
        base_url = config.base_url
        provider = Provider(
            backend=backend,
            model=model,
            key=f"{backend}|{base_url or ''}",
            identity={"base_url": base_url},
            price_provider=backend,
        )
    if backend in ("fake", "callable"):
        explicit = (config.concurrency, config.requests_per_minute, config.tokens_per_minute)
        limited = any(x is not None for x in explicit)
        return ReliableJudge(judge, config, provider, cache=False, limited=limited)
    return ReliableJudge(judge, config, provider)
