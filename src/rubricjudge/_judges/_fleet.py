"""Endpoint fleets: one judge over several OpenAI-compatible servers.

A :class:`Fleet` holds one :class:`~._http.Endpoint` per base URL and sends each
call to the least-loaded healthy one: the fewest calls in flight (counted across
every judge of the process that uses that URL), ties going to the one picked
longest ago. A call that fails on a connection error or a 5xx moves on, within
the same attempt, to the next endpoint it has not tried, so the reliability
layer counts one failed attempt only when every endpoint it could try failed.

An endpoint that failed that way (or timed out) is unhealthy for a back-off
period (1 s, doubling per failure in a row, at most 30 s); then one call at a
time probes it, and its first answer makes it healthy again. When no endpoint
is healthy, an attempt still tries the one whose back-off ends first, so a
fleet of one behaves exactly as a single endpoint, and a fleet that is down
fails as a recorded judge error after the usual retries, never as a verdict.

An endpoint that answers 429 (rate limited) rests too: for as long as its
``Retry-After`` says (at most 120 s), else as after a 5xx, and the call moves on
to another endpoint within the same attempt. Otherwise a server that refuses fast,
having the fewest calls in flight, would draw most calls and fail them while the
others sat idle. Only when every endpoint it could try refused does the attempt
fail, as a ``rate_limit`` error whose wait is the time until the first endpoint is
back; the reliability layer waits that long before the next attempt.

An endpoint that answers 200 with a reply that cannot be read (not JSON, no
choices, not the request's schema) fails too: the judge calls
:meth:`Fleet.unreadable`, the endpoint rests as after a 5xx, and the judge asks
the same question of another healthy endpoint it has not asked in this attempt
(``avoid``), keeping the unreadable reply only when none is left.

Each fleet counts, per endpoint, the requests sent, those that failed (of them,
the unreadable replies and the rate-limited ones), and the latency of those
answered; :meth:`Fleet.stats` reports them as :class:`EndpointStats`
(``RunSummary.endpoints`` sums them over a run).
"""

from __future__ import annotations

import threading
import time
from array import array
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from .._errors import ConfigError, JudgeError
from .._quantiles import summary_percentiles
from ._http import Endpoint, HTTPReply, _hop, status_error
from ._retry import MAX_RETRY_AFTER_S, parse_retry_after

__all__ = [
    "BACKOFF_CAP_S",
    "BACKOFF_START_S",
    "EndpointStats",
    "Fleet",
    "FleetMark",
    "endpoint_stats",
    "parse_base_urls",
    "single_base_url",
]

BACKOFF_START_S = 1.0
"""How long an endpoint is left alone after its first failure (doubling per failure)."""
BACKOFF_CAP_S = 30.0
"""The longest an unhealthy endpoint waits for its next probe."""

_FAILOVER = frozenset({"connection", "server"})
_UNHEALTHY = _FAILOVER | {"timeout"}


class EndpointStats(BaseModel):
    """What one endpoint of a fleet did: requests sent, how many failed, how fast it answered.

    ``calls`` counts requests sent to the endpoint (a call that failed over to
    another endpoint counts once on each); ``errors`` those that failed: no 2xx
    reply (connection errors, timeouts, any non-2xx status) or, counted also in
    ``unreadable``, a 2xx reply that could not be read (not JSON, not the
    request's schema); ``latency_s`` holds ``p50``,
    ``p90`` and ``max`` over the answered requests (empty when none was);
    ``healthy`` is False when the endpoint's last request failed (it is resting, or
    waiting for a call to probe it).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    calls: int = 0
    errors: int = 0
    unreadable: int = 0
    rate_limited: int = 0
    latency_s: dict[str, float] = Field(default_factory=dict)
    healthy: bool = True


def parse_base_urls(value: str | Sequence[str], what: str) -> tuple[str, ...]:
    """The base URLs in ``value`` (a URL, URLs separated by commas, or a list of them).

    ``what`` names where the value came from (``--base-url``, ``base_url``,
    ``OPENAI_BASE_URL``) in errors.

    Raises:
        ConfigError: an entry is empty or not an http(s) URL, or a URL is listed twice.
    """
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        parts = [p for v in value for p in v.split(",")]
    else:
        raise ConfigError(f"{what} {value!r} is not a URL or a list of URLs")
    example = "'http://gpu1:8000/v1,http://gpu2:8000/v1'"
    urls: list[str] = []
    for pos, raw in enumerate(parts, 1):
        url = raw.strip().rstrip("/")
        if not url:
            raise ConfigError(
                f"{what} {value!r}: entry {pos} is empty; give base URLs separated by "
                f"commas, like {example}"
            )
        _hop(url, f"{what} entry")
        if url in urls:
            raise ConfigError(f"{what} {value!r} lists {url!r} twice; give each server once")
        urls.append(url)
    if not urls:
        raise ConfigError(f"{what} names no URL; give one, or several like {example}")
    return tuple(urls)


def single_base_url(value: str | Sequence[str] | None, backend: str) -> str | None:
    """``value`` as one base URL, for a backend that talks to one server only.

    Raises:
        ConfigError: ``value`` lists several URLs (a fleet, which ``openai/`` judges take).
    """
    if value is None or (isinstance(value, str) and "," not in value):
        return value
    urls = parse_base_urls(value, "base_url")
    if len(urls) > 1:
        raise ConfigError(
            f"base_url lists {len(urls)} URLs, a fleet; {backend}/ judges talk to one server. "
            "Endpoint fleets work with openai/ judges (any OpenAI-compatible server)"
        )
    return urls[0]


@dataclass
class _Health:
    """One server's state, shared by every fleet of the process that lists its URL."""

    in_flight: int = 0
    failures: int = 0  # in a row
    down_until: float = 0.0  # 0: healthy
    picked: int = 0  # when it was last picked (a sequence number)


_HEALTH: dict[str, _Health] = {}
_LOCK = threading.Lock()
_SEQ = [0]


def _health(url: str) -> _Health:
    with _LOCK:
        return _HEALTH.setdefault(url, _Health())


@dataclass
class _Counts:
    calls: int = 0
    errors: int = 0
    unreadable: int = 0
    rate_limited: int = 0
    latencies: array[float] = field(default_factory=lambda: array("d"))


def _rest(h: _Health, told: float | None = None) -> None:
    """Mark ``h`` failed once more: it rests 1 s, doubling per failure in a row, up to 30 s.

    ``told`` is the rest the server asked for (``Retry-After``), honoured instead, up to
    ``MAX_RETRY_AFTER_S``.
    """
    h.failures += 1
    rest = min(BACKOFF_CAP_S, BACKOFF_START_S * 2.0 ** (h.failures - 1))
    if told is not None:
        rest = min(max(told, 0.0), MAX_RETRY_AFTER_S)
    h.down_until = time.monotonic() + rest


def _available(h: _Health, now: float) -> bool:
    """Whether ``h`` may take a call: healthy, or rested and not being probed already."""
    return h.down_until == 0 or (now >= h.down_until and h.in_flight == 0)


@dataclass(frozen=True)
class FleetMark:
    """Where a fleet's counters stood at one moment (see :meth:`Fleet.stats`)."""

    counts: Mapping[str, tuple[int, int, int, int, int]]


class Fleet:
    """Several endpoints of one judge; :meth:`post` routes, fails over and counts."""

    def __init__(self, chat_urls: Sequence[str], headers: Mapping[str, str]) -> None:
        if not chat_urls:
            raise ConfigError("a fleet needs at least one URL")
        self.urls = tuple(chat_urls)
        self.endpoints = [Endpoint(url, headers) for url in self.urls]
        self._health = [_health(url) for url in self.urls]
        self._counts = [_Counts() for _ in self.urls]

    def __len__(self) -> int:
        return len(self.endpoints)

    def _pick(self, tried: set[int], avoid: Set[int] = frozenset()) -> int | None:
        """The endpoint to try next, marked in flight; None when none is left to try.

        ``tried`` holds the endpoints this post tried, ``avoid`` those the caller asked
        before in the same attempt (their replies could not be read).
        """
        now = time.monotonic()
        with _LOCK:
            best: tuple[int, int] | None = None
            chosen = None
            for i, h in enumerate(self._health):
                if i in tried or i in avoid:
                    continue
                if not _available(h, now):
                    continue  # resting, or already being probed by one call
                rank = (h.in_flight, h.picked)
                if best is None or rank < best:
                    best, chosen = rank, i
            if chosen is None and not tried:
                # nothing healthy: try the one whose rest ends first, as one endpoint would be
                left = [i for i in range(len(self._health)) if i not in avoid]
                chosen = min(left or range(len(self._health)), key=self._back_at)
            if chosen is None:
                return None
            h = self._health[chosen]
            h.in_flight += 1
            _SEQ[0] += 1
            h.picked = _SEQ[0]
            return chosen

    def _back_at(self, i: int) -> float:
        return self._health[i].down_until

    def healthy_besides(self, avoid: Set[int]) -> bool:
        """Whether an endpoint not in ``avoid`` could take a call now (healthy, or due a probe)."""
        now = time.monotonic()
        with _LOCK:
            return any(_available(h, now) for i, h in enumerate(self._health) if i not in avoid)

    def _done(
        self, i: int, latency: float | None, *, failed: str | None, told: float | None = None
    ) -> None:
        """Settle one request: counters, in-flight, and health (``failed``: its category).

        ``told``: the rest a rate-limited endpoint asked for (its ``Retry-After``).
        """
        counts = self._counts[i]
        with _LOCK:
            h = self._health[i]
            h.in_flight -= 1
            counts.calls += 1
            if latency is not None and failed is None:
                counts.latencies.append(latency)
            if failed is not None:
                counts.errors += 1
            if failed == "rate_limit":
                counts.rate_limited += 1
                _rest(h, told)
            elif failed in _UNHEALTHY:
                _rest(h)
            elif failed is None or latency is not None:  # it answered: it is up
                h.failures = 0
                h.down_until = 0.0

    def unreadable(self, reply: HTTPReply) -> None:
        """Count ``reply``, a 2xx that could not be read, against its endpoint and rest it."""
        i = reply.endpoint
        if not 0 <= i < len(self._counts):
            return
        counts = self._counts[i]
        with _LOCK:
            counts.errors += 1
            counts.unreadable += 1
            _rest(self._health[i])

    def _soonest_back(self) -> float:
        """Seconds until the first resting endpoint may be asked again (0 if one may now)."""
        now = time.monotonic()
        with _LOCK:
            return max(0.0, min(h.down_until for h in self._health) - now)

    async def post(
        self, body: bytes, *, timeout_s: float, avoid: Set[int] = frozenset()
    ) -> HTTPReply:
        """POST ``body`` to the least-loaded healthy endpoint, failing over as needed.

        A connection error, a 5xx or a 429 moves on to the next healthy endpoint not
        tried (and not in ``avoid``). Returns the reply of the endpoint that answered
        (whatever its status below 500 but 429), or, with one endpoint tried, its 5xx
        or 429 reply.

        Raises:
            JudgeError: as :meth:`Endpoint.post` for the one endpoint tried; when
                several were tried and none answered, category ``server``,
                ``connection`` or ``rate_limit`` (the last failure's) naming each
                failure; when every one refused with 429, its ``retry_after`` is the
                time until the first endpoint is back.
        """
        tried: set[int] = set()
        failures: list[tuple[int, JudgeError, HTTPReply | None]] = []
        while (i := self._pick(tried, avoid)) is not None:
            tried.add(i)
            start = time.perf_counter()
            try:
                reply = await self.endpoints[i].post(body, timeout_s=timeout_s)
            except JudgeError as e:
                self._done(i, None, failed=e.category)
                if e.category not in _FAILOVER:
                    raise  # a timeout spent the attempt's time; others would fail anywhere
                failures.append((i, e, None))
                continue
            except BaseException:  # cancelled: no verdict on the endpoint
                with _LOCK:
                    self._health[i].in_flight -= 1
                raise
            latency = time.perf_counter() - start
            if reply.status >= 500:
                self._done(i, None, failed="server")
                failures.append((i, status_error(reply), reply))
                continue
            if reply.status == 429:  # rate limited: it rests, the call goes elsewhere
                error = status_error(reply)
                self._done(i, None, failed="rate_limit", told=parse_retry_after(reply.headers))
                failures.append((i, error, reply))
                continue
            ok = 200 <= reply.status < 300
            self._done(i, latency, failed=None if ok else "answered")
            return HTTPReply(reply.status, reply.headers, reply.body, i)  # not replace(): per call
        if len(self) > 1 and all(e.category == "rate_limit" for _, e, _ in failures):
            wait = self._soonest_back()  # every endpoint tried refused: wait for the first back
            for _, error, _ in failures:
                error.retry_after = wait
        if len(failures) == 1:
            i, error, got = failures[0]
            if len(self) > 1:  # the others were resting after failures of their own
                raise JudgeError(
                    f"none of the {len(self)} endpoints answered (the others are resting "
                    f"after failures); {self.urls[i].removesuffix('/chat/completions')}: {error}",
                    category=error.category,
                    retry_after=error.retry_after,
                )
            if got is not None:
                return got  # a 5xx or 429, read by the caller as a single endpoint's would be
            raise error
        why = "; ".join(
            f"{self.urls[i].removesuffix('/chat/completions')}: {e}" for i, e, _ in failures
        )
        last = failures[-1][1]
        raise JudgeError(
            f"{len(failures)} of {len(self)} endpoints tried, none answered ({why})",
            category=last.category,
            retry_after=last.retry_after,
        )

    def mark(self) -> FleetMark:
        """The counters now, to report only what follows (see :meth:`stats`)."""
        with _LOCK:
            return FleetMark(
                {
                    url: (c.calls, c.errors, len(c.latencies), c.unreadable, c.rate_limited)
                    for url, c in zip(self.urls, self._counts, strict=True)
                }
            )

    def stats(self, since: FleetMark | None = None) -> dict[str, EndpointStats]:
        """Each endpoint's numbers (base URL -> stats), since ``since`` if given."""
        return endpoint_stats([(self, since)])

    def _raw(self, since: FleetMark | None) -> list[tuple[str, _Counts, bool]]:
        """Per endpoint: base URL, its counts since ``since`` and whether it is healthy."""
        out = []
        with _LOCK:
            for url, c, h in zip(self.urls, self._counts, self._health, strict=True):
                zero = (0, 0, 0, 0, 0)
                before = since.counts.get(url, zero) if since is not None else zero
                base = url.removesuffix("/chat/completions")
                got = _Counts(
                    calls=c.calls - before[0],
                    errors=c.errors - before[1],
                    unreadable=c.unreadable - before[3],
                    rate_limited=c.rate_limited - before[4],
                    latencies=c.latencies[before[2] :],
                )
                out.append((base, got, h.failures == 0))
        return out


def endpoint_stats(
    fleets: Iterable[tuple[Fleet, FleetMark | None]],
) -> dict[str, EndpointStats]:
    """Per base URL, the numbers of ``fleets`` (each since its mark), summed over fleets."""
    merged: dict[str, tuple[_Counts, bool]] = {}
    for fleet, since in fleets:
        for base, got, healthy in fleet._raw(since):
            if base not in merged:
                merged[base] = (got, healthy)
                continue
            c, h = merged[base]
            c = _Counts(
                calls=c.calls + got.calls,
                errors=c.errors + got.errors,
                unreadable=c.unreadable + got.unreadable,
                rate_limited=c.rate_limited + got.rate_limited,
                latencies=c.latencies + got.latencies,
            )
            merged[base] = (c, h and healthy)
    out: dict[str, EndpointStats] = {}
    for base, (c, healthy) in merged.items():
        latency = summary_percentiles(c.latencies, (("p50", 50), ("p90", 90)))
        out[base] = EndpointStats(
            calls=c.calls,
            errors=c.errors,
            unreadable=c.unreadable,
            rate_limited=c.rate_limited,
            latency_s=latency,
            healthy=healthy,
        )
    return out
