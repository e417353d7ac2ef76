"""When to retry a failed judge call, and how long to wait first.

Transient failures (rate limits, 5xx, timeouts, dropped connections) back off
exponentially with full jitter (a uniform wait between 0 and the exponential
ceiling), unless the server said how long to wait with ``Retry-After``, which is
honoured (capped so that a hostile value cannot stall a run for hours).
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import JudgeError

__all__ = ["MAX_RETRY_AFTER_S", "TRANSIENT", "Backoff", "parse_retry_after", "retry_after_of"]

TRANSIENT = frozenset({"rate_limit", "server", "timeout", "connection"})
"""Judge error categories worth another attempt after a wait."""

MAX_RETRY_AFTER_S = 120.0
"""The longest ``Retry-After`` honoured: a hostile value cannot stall a run for hours."""


def parse_retry_after(
    headers: Mapping[str, str] | Any, *, now: float | None = None
) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``Retry-After`` (seconds or an HTTP date).

    Returns None when there is no usable header; never negative.
    """
    try:
        ms = headers.get("retry-after-ms")
        raw = headers.get("retry-after")
    except AttributeError:
        return None
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    if raw is None:
        return None
    raw = str(raw).strip()
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def retry_after_of(error: BaseException) -> float | None:
    """The wait a failed call asked for: ``error.retry_after`` or its cause's response headers."""
    value = getattr(error, "retry_after", None)
    if isinstance(value, int | float):
        return float(value)
    seen: set[int] = set()
    exc: BaseException | None = error
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        if headers is not None:
            wait = parse_retry_after(headers)
            if wait is not None:
                return wait
        exc = exc.__cause__ or exc.__context__
    return None


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff with full jitter: attempt ``n`` waits ``U(0, min(cap, base*2**n))``."""

    base_s: float = 0.5
    cap_s: float = 30.0

    def delay(self, attempt: int, error: JudgeError, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based) after ``error``."""
        told = retry_after_of(error)
        if told is not None:
            return min(told, MAX_RETRY_AFTER_S)
        ceiling = min(self.cap_s, self.base_s * (2.0**attempt))
        return (rng or random).uniform(0.0, ceiling)
