"""Weighted samples: the one representation every agreement metric is computed from.

A metric sees its items through a weight matrix ``W`` of shape ``(R, n)``: row
``r`` says how many times each item counts in replicate ``r``. The point estimate
is one row of ones; a bootstrap replicate is the resample's item counts. Every
metric is then a vectorised function of ``W``, so 1,000 resamples cost one pass of
array arithmetic instead of 1,000 Python-level recomputations.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = [
    "FloatArray",
    "IntArray",
    "contingency",
    "ones_weights",
    "percentile_interval",
    "resample_weights",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def ones_weights(n: int) -> FloatArray:
    """Weights of the point estimate: every item counted once."""
    return np.ones((1, n), dtype=np.float64)


def resample_weights(
    n: int, resamples: int, seed: int | np.random.Generator | None = None
) -> FloatArray:
    """Item counts of ``resamples`` bootstrap resamples of ``n`` items, shape ``(resamples, n)``.

    Drawing the index matrix and counting it with one ``bincount`` is the whole
    cost; no resample is materialised as a copy of the data. ``seed`` may be a
    generator, to draw resamples in several blocks from one stream.
    """
    if n == 0:
        return np.zeros((resamples, 0), dtype=np.float64)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    flat = idx + (np.arange(resamples, dtype=np.int64) * n)[:, None]
    counts = np.bincount(flat.ravel(), minlength=resamples * n)
    return counts.reshape(resamples, n).astype(np.float64)


def percentile_interval(values: FloatArray, confidence: float) -> tuple[float, float]:
    """The percentile interval of bootstrap replicates, over those where the value is defined."""
    finite = values[~np.isnan(values)]
    if finite.size == 0:
        return (math.nan, math.nan)
    lo, hi = np.quantile(finite, [(1 - confidence) / 2, (1 + confidence) / 2])
    return (float(lo), float(hi))


def contingency(
    true_codes: IntArray, pred_codes: IntArray, k: int, weights: FloatArray
) -> FloatArray:
    """Weighted confusion tables, shape ``(R, k, k)``: rows are truth, columns prediction.

    Items with a negative code on either side are left out (that is how a metric
    excludes N/A or missing pairs while the resampling stays over all items).
    """
    t = np.asarray(true_codes, dtype=np.int64)
    p = np.asarray(pred_codes, dtype=np.int64)
    keep = (t >= 0) & (p >= 0)
    if np.any(t[keep] >= k) or np.any(p[keep] >= k):
        raise ValueError(f"codes must lie in 0..{k - 1}")
    cells = t[keep] * k + p[keep]
    onehot = np.zeros((cells.size, k * k), dtype=np.float64)
    onehot[np.arange(cells.size), cells] = 1.0
    table = weights[:, keep] @ onehot
    return table.reshape(weights.shape[0], k, k)
