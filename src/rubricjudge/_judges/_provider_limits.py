"""Concurrency and rate limits per provider, shared by every judge in the process.

A provider key (backend plus base URL) names one :class:`ProviderLimits`: a gate
on requests in flight, a requests-per-minute bucket and a tokens-per-minute
bucket. The primitives are guarded by thread locks and wake waiters through their
own event loop, so they work from several event loops, in turn (each ``*_sync``
wrapper runs ``asyncio.run``) or at once in different threads; nothing is bound
to a loop that has since closed.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

__all__ = ["DEFAULT_CONCURRENCY", "Gate", "ProviderLimits", "TokenBucket", "limits_for"]

DEFAULT_CONCURRENCY = 32
"""Requests in flight per provider when the config does not say."""

Sleep = Callable[[float], Awaitable[None]]


class Gate:
    """At most ``limit`` holders at once (None: no limit); FIFO, any event loop."""

    def __init__(self, limit: int | None) -> None:
        self._limit = limit
        self._active = 0
        self._lock = threading.Lock()
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    @property
    def active(self) -> int:
        """Current holders."""
        return self._active

    @property
    def limit(self) -> int | None:
        """Holders allowed at once (None: no limit)."""
        return self._limit

    def set_limit(self, limit: int | None) -> None:
        """Change the limit; waiters are admitted if it grew."""
        with self._lock:
            self._limit = limit
        self._admit()

    def try_acquire(self) -> bool:
        """Take a place if one is free now, without waiting; whether it was taken."""
        with self._lock:
            if not self._waiters and (self._limit is None or self._active < self._limit):
                self._active += 1
                return True
            return False

    async def acquire(self) -> None:
        """Wait for a place."""
        with self._lock:
            if not self._waiters and (self._limit is None or self._active < self._limit):
                self._active += 1
                return
            loop = asyncio.get_running_loop()
            fut: asyncio.Future[None] = loop.create_future()
            entry = (loop, fut)
            self._waiters.append(entry)
        try:
            await fut
        except asyncio.CancelledError:
            with self._lock:
                queued = entry in self._waiters
                if queued:
                    self._waiters.remove(entry)
            if not queued and not fut.cancelled():
                self.release()  # the place was handed to us as we were cancelled
            raise

    def release(self) -> None:
        """Give a place back (to the longest waiter, if any)."""
        with self._lock:
            self._active -= 1
        self._admit()

    def _admit(self) -> None:
        while True:
            with self._lock:
                if not self._waiters or (self._limit is not None and self._active >= self._limit):
                    return
                loop, fut = self._waiters.popleft()
                if loop.is_closed():
                    continue
                self._active += 1
            if asyncio._get_running_loop() is loop:
                self._grant(fut)  # same loop and thread: no need to wake it through its pipe
                continue
            try:
                loop.call_soon_threadsafe(self._grant, fut)
            except RuntimeError:  # the loop closed meanwhile
                with self._lock:
                    self._active -= 1

    def _grant(self, fut: asyncio.Future[None]) -> None:
        if fut.cancelled():
            self.release()
        else:
            fut.set_result(None)


class TokenBucket:
    """Refills at ``rate`` per second up to ``capacity``; a take may overdraw a full bucket."""

    def __init__(
        self, rate: float, capacity: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.capacity = capacity
        self._clock = clock
        self._tokens = capacity
        self._stamp = clock()
        self._lock = threading.Lock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.capacity, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def try_take(self, n: float) -> float:
        """Take ``n`` now and return 0, or take nothing and return the seconds to wait."""
        with self._lock:
            self._refill()
            need = min(n, self.capacity)  # larger takes go through once the bucket is full
            if self._tokens >= need:
                self._tokens -= n
                return 0.0
            return (need - self._tokens) / self.rate

    async def take(self, n: float, sleep: Sleep = asyncio.sleep) -> None:
        """Wait until ``n`` tokens can be taken, then take them."""
        while (wait := self.try_take(n)) > 0:
            await sleep(wait)

    def give_back(self, n: float) -> None:
        """Return ``n`` tokens (negative: take more) once the real cost is known."""
        with self._lock:
            self._refill()
            self._tokens = min(self.capacity, self._tokens + n)


class ProviderLimits:
    """The gate and buckets of one provider key."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.gate = Gate(DEFAULT_CONCURRENCY)
        self.requests: TokenBucket | None = None
        self.tokens: TokenBucket | None = None
        self._resume_at = 0.0

    def configure(
        self, concurrency: int | None, rpm: float | None, tpm: float | None
    ) -> ProviderLimits:
        """Apply the explicit settings (None keeps the current one)."""
        if concurrency is not None:
            self.gate.set_limit(concurrency)
        if rpm is not None:
            self.requests = _per_minute(self.requests, rpm)
        if tpm is not None:
            self.tokens = _per_minute(self.tokens, tpm)
        return self

    def pause(self, seconds: float) -> None:
        """Hold every new request for ``seconds`` (the provider said to back off)."""
        self._resume_at = max(self._resume_at, time.monotonic() + seconds)

    @asynccontextmanager
    async def slot(self, est_tokens: int, sleep: Sleep = asyncio.sleep) -> AsyncIterator[None]:
        """Hold one request's place: concurrency first, then the rate buckets."""
        await self.gate.acquire()
        try:
            while (wait := self._resume_at - time.monotonic()) > 0:
                await asyncio.sleep(wait)  # a provider-wide pause, not this call's backoff
            if self.requests is not None:
                await self.requests.take(1, sleep)
            if self.tokens is not None:
                await self.tokens.take(est_tokens, sleep)
            yield
        finally:
            self.gate.release()

    def settle(self, est_tokens: int, used_tokens: int | None) -> None:
        """Correct the token bucket once the call's real usage is known.

        One reply can charge at most ``MAX_CHARGE_FACTOR`` times its estimate (and at
        least the estimate's own size): a server that claims 10^15 tokens must not
        stall every later call.
        """
        if self.tokens is not None and used_tokens is not None:
            used = min(max(used_tokens, 0), max(est_tokens, 1) * MAX_CHARGE_FACTOR)
            self.tokens.give_back(est_tokens - used)


MAX_CHARGE_FACTOR = 8
"""How many times its estimate one reply may charge to a tokens-per-minute limit."""


def _per_minute(bucket: TokenBucket | None, per_minute: float) -> TokenBucket:
    # Burst of one second's worth: providers often enforce limits in short windows.
    rate = per_minute / 60.0
    if bucket is not None and bucket.rate == rate:
        return bucket  # the same limit set again must not refill the bucket
    return TokenBucket(rate, max(1.0, rate))


_REGISTRY: dict[str, ProviderLimits] = {}
_REGISTRY_LOCK = threading.Lock()


def limits_for(
    key: str,
    concurrency: int | None = None,
    rpm: float | None = None,
    tpm: float | None = None,
) -> ProviderLimits:
    """The process-wide limits of provider ``key``, updated with any explicit setting."""
    with _REGISTRY_LOCK:
        limits = _REGISTRY.get(key)
        if limits is None:
            limits = _REGISTRY[key] = ProviderLimits(key)
    return limits.configure(concurrency, rpm, tpm)
