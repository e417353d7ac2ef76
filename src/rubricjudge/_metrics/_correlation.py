"""Pearson, Spearman and Kendall's tau-b over weighted points, vectorised over replicates.

Points are ``(x[i], y[i])``; ``weights`` has shape ``(R, m)`` and counts each point
per replicate (see ``_tables``). Ties are handled as SciPy does: Spearman uses
mid-ranks, Kendall is tau-b. A correlation with a constant side is NaN (SciPy
returns NaN there too).
"""

from __future__ import annotations

import numpy as np

from ._tables import FloatArray

__all__ = ["kendall_tau_b", "midranks", "pearson", "spearman", "table_points"]

# bound on the (m x block) pair matrices Kendall builds at once, in elements
_BLOCK_ELEMENTS = 4_000_000


def _constant(values: FloatArray, weights: FloatArray) -> np.ndarray:
    """Per replicate: True when all points with weight > 0 share one value."""
    if weights.shape[-1] == 0:
        return np.ones(weights.shape[0], dtype=bool)
    v = np.broadcast_to(values, weights.shape)
    used = weights > 0
    hi = np.where(used, v, -np.inf).max(axis=-1)
    lo = np.where(used, v, np.inf).min(axis=-1)
    return np.asarray(~(hi > lo))


def pearson(x: FloatArray, y: FloatArray, weights: FloatArray) -> FloatArray:
    """Weighted Pearson correlation per replicate; NaN when a side is constant."""
    n = weights.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = (weights * x).sum(axis=-1) / n
        my = (weights * y).sum(axis=-1) / n
        dx = x - mx[:, None]
        dy = y - my[:, None]
        cov = (weights * dx * dy).sum(axis=-1)
        vx = (weights * dx * dx).sum(axis=-1)
        vy = (weights * dy * dy).sum(axis=-1)
        r = cov / np.sqrt(vx * vy)
    r = np.clip(r, -1.0, 1.0)
    r[_constant(x, weights) | _constant(y, weights) | (n < 2)] = np.nan
    return np.asarray(r, dtype=np.float64)


def midranks(values: FloatArray, weights: FloatArray) -> FloatArray:
    """1-based mid-ranks of each point within each replicate, shape ``(R, m)``.

    A point counted ``w`` times occupies ``w`` consecutive ranks; tied values share
    the mean of their ranks, as ``scipy.stats.rankdata`` does on the expanded sample.
    """
    order = np.argsort(values, kind="stable")
    sorted_vals = values[order]
    r_count, m = weights.shape
    if m == 0:
        return np.zeros((r_count, 0))
    new_group = np.empty(m, dtype=bool)
    new_group[0] = True
    new_group[1:] = sorted_vals[1:] != sorted_vals[:-1]
    group = np.cumsum(new_group) - 1
    starts = np.flatnonzero(new_group)
    ends = np.append(starts[1:], m) - 1
    cum = np.cumsum(weights[:, order], axis=1)
    earlier = np.concatenate([np.zeros((r_count, 1)), cum], axis=1)[:, starts]
    size = cum[:, ends] - earlier
    group_rank = earlier + (size + 1.0) / 2.0
    ranks_sorted = group_rank[:, group]
    out = np.empty_like(ranks_sorted)
    out[:, order] = ranks_sorted
    return np.asarray(out, dtype=np.float64)


def spearman(x: FloatArray, y: FloatArray, weights: FloatArray) -> FloatArray:
    """Weighted Spearman correlation (Pearson of mid-ranks) per replicate."""
    rx = midranks(x, weights)
    ry = midranks(y, weights)
    r = pearson_rows(rx, ry, weights)
    r[_constant(x, weights) | _constant(y, weights)] = np.nan
    return r


def pearson_rows(a: FloatArray, b: FloatArray, weights: FloatArray) -> FloatArray:
    """Weighted Pearson where ``a`` and ``b`` differ per replicate (shape ``(R, m)``)."""
    n = weights.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        da = a - (weights * a).sum(axis=-1, keepdims=True) / n
        db = b - (weights * b).sum(axis=-1, keepdims=True) / n
        cov = (weights * da * db).sum(axis=-1)
        r = cov / np.sqrt((weights * da * da).sum(axis=-1) * (weights * db * db).sum(axis=-1))
    return np.asarray(np.clip(r, -1.0, 1.0), dtype=np.float64)


def kendall_tau_b(x: FloatArray, y: FloatArray, weights: FloatArray) -> FloatArray:
    """Weighted Kendall's tau-b per replicate; NaN when a side is constant.

    With ``s(i, j) = sign(x_i - x_j) * sign(y_i - y_j)`` the concordance sum of a
    replicate is ``w @ S @ w``: one matrix product for all replicates, in blocks.
    """
    m = x.shape[0]
    r_count = weights.shape[0]
    num = np.zeros(r_count)
    px = np.zeros(r_count)
    py = np.zeros(r_count)
    block = max(1, _BLOCK_ELEMENTS // max(m, 1))
    for lo in range(0, m, block):
        hi = min(m, lo + block)
        sx = np.sign(x[:, None] - x[None, lo:hi])
        sy = np.sign(y[:, None] - y[None, lo:hi])
        wb = weights[:, lo:hi]
        num += ((weights @ (sx * sy)) * wb).sum(axis=-1)
        px += ((weights @ np.abs(sx)) * wb).sum(axis=-1)
        py += ((weights @ np.abs(sy)) * wb).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = num / np.sqrt(px * py)
    tau[(px == 0) | (py == 0)] = np.nan
    return np.asarray(np.clip(tau, -1.0, 1.0), dtype=np.float64)


def table_points(tables: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Confusion tables ``(R, k, k)`` as weighted points: (x = truth level, y = predicted, w)."""
    k = tables.shape[-1]
    x = np.repeat(np.arange(k, dtype=np.float64), k)
    y = np.tile(np.arange(k, dtype=np.float64), k)
    return x, y, tables.reshape(tables.shape[0], k * k)
