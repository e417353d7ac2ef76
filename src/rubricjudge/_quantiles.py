"""Percentiles of latencies without numpy, so that a run does not load it to summarise."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

__all__ = ["percentile", "summary_percentiles"]


def percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of sorted values, interpolated as numpy's default."""
    pos = (len(ordered) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    a, b, t = ordered[lo], ordered[hi], pos - lo
    # numpy's lerp: from the nearer end, so that t = 1 gives b exactly
    return b - (b - a) * (1.0 - t) if t >= 0.5 else a + (b - a) * t


def summary_percentiles(
    values: Iterable[float], points: Iterable[tuple[str, float]]
) -> dict[str, float]:
    """``{name: percentile}`` for each (name, q) of ``points`` plus ``max`` (empty if none)."""
    ordered = sorted(values)
    if not ordered:
        return {}
    out = {name: float(percentile(ordered, q)) for name, q in points}
    out["max"] = float(ordered[-1])
    return out
