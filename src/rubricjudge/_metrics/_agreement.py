"""Agreement among several raters: Krippendorff's alpha and Fleiss' kappa.

Used for ensembles of judges (each judge a rater, each item a unit) and for
several human annotators. Both return NaN when agreement is undefined (every
rating identical, so no disagreement is expected); the ``krippendorff`` package
raises an error there instead.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from ._tables import FloatArray

__all__ = ["fleiss_kappa", "krippendorff_alpha"]

Level = Literal["nominal", "ordinal", "interval"]


def _value_counts(data: FloatArray, domain: FloatArray) -> FloatArray:
    """Per unit, how many raters gave each domain value: shape ``(units, values)``."""
    counts = np.zeros((data.shape[1], domain.size))
    for j, v in enumerate(domain):
        counts[:, j] = (data == v).sum(axis=0)
    return counts


def krippendorff_alpha(
    reliability_data: npt.ArrayLike,
    level: Level = "nominal",
    *,
    value_domain: npt.ArrayLike | None = None,
) -> float:
    """Krippendorff's alpha of ``reliability_data`` (raters x units, NaN where missing).

    ``level`` picks the distance: nominal (values differ), ordinal (rank distance
    weighted by how often each value occurs) or interval (squared difference).
    Units with fewer than two ratings are left out.
    """
    data = np.asarray(reliability_data, dtype=np.float64)
    if data.ndim != 2:
        raise ValueError(f"reliability data must be 2-D (raters x units), got shape {data.shape}")
    if value_domain is None:
        domain = np.unique(data[~np.isnan(data)])
    else:
        domain = np.asarray(value_domain, dtype=np.float64)
    counts = _value_counts(data, domain)
    pairable = counts.sum(axis=1)
    counts = counts[pairable >= 2]
    m = pairable[pairable >= 2]
    if counts.shape[0] == 0:
        return float("nan")
    coincidence = np.einsum("ua,ub->ab", counts / (m - 1.0)[:, None], counts)
    coincidence -= np.diag((counts / (m - 1.0)[:, None]).sum(axis=0))
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    delta = _distance(domain, n_c, level)
    observed = (coincidence * delta).sum()
    expected = (np.outer(n_c, n_c) * delta).sum() / (n - 1.0)
    if expected == 0:
        return float("nan")
    return float(1.0 - observed / expected)


def _distance(domain: FloatArray, n_c: FloatArray, level: Level) -> FloatArray:
    k = domain.size
    if level == "nominal":
        return np.asarray(1.0 - np.eye(k))
    if level == "interval":
        return np.asarray((domain[:, None] - domain[None, :]) ** 2)
    if level == "ordinal":
        cum = np.concatenate([[0.0], np.cumsum(n_c)])
        lo = np.minimum.outer(np.arange(k), np.arange(k))
        hi = np.maximum.outer(np.arange(k), np.arange(k))
        between = cum[hi + 1] - cum[lo]
        return np.asarray((between - (n_c[lo] + n_c[hi]) / 2.0) ** 2)
    raise ValueError(f"level {level!r}; use 'nominal', 'ordinal' or 'interval'")


def fleiss_kappa(counts: npt.ArrayLike) -> float:
    """Fleiss' kappa of a ``(units, categories)`` table of rating counts.

    Every unit must have the same number of ratings (at least two); NaN when all
    ratings fall in one category.
    """
    table = np.asarray(counts, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] == 0:
        raise ValueError(f"counts must be a non-empty 2-D table, got shape {table.shape}")
    raters = table.sum(axis=1)
    if not np.all(raters == raters[0]) or raters[0] < 2:
        raise ValueError("Fleiss' kappa needs the same number (>= 2) of ratings on every unit")
    m = raters[0]
    agreement = ((table * table).sum(axis=1) - m) / (m * (m - 1.0))
    p_bar = agreement.mean()
    shares = table.sum(axis=0) / table.sum()
    p_e = float((shares * shares).sum())
    if p_e == 1.0:
        return float("nan")
    return float((p_bar - p_e) / (1.0 - p_e))
