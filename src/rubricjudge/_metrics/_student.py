"""The small-sample correction of a bootstrap percentile interval of a mean.

A percentile interval of a mean is as wide as ``z * s / sqrt(n)`` with the plug-in
``s`` (divisor ``n``), where the exact interval under normality is
``t(n - 1) * s / sqrt(n)`` with divisor ``n - 1``: it is too narrow for small ``n``
(3.6% false alarms at 20 items where 2.5% is meant). The *expanded percentile
interval* (Hesterberg, "What teachers should know about the bootstrap", The
American Statistician 69, 2015) reads the bootstrap quantiles at a wider level
``c'`` with ``z((1 + c') / 2) = sqrt(n / (n - 1)) * t((1 + c) / 2, n - 1)``. It keeps
the percentile interval's shape (skewness) and tends to it as ``n`` grows.

Student's t quantiles come from the Cornish-Fisher expansion in ``1 / df`` (exact
closed forms for 1 and 2 degrees of freedom): within 1e-4 relative of the exact
value at the 0.975 quantile from 5 degrees of freedom on, 1.2e-3 at 3.
"""

from __future__ import annotations

import math
from statistics import NormalDist

__all__ = ["expanded_confidence", "t_quantile"]

_NORMAL = NormalDist()


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (``0 < p < 1``)."""
    if df < 1:
        raise ValueError(f"degrees of freedom {df!r} must be at least 1")
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    z = _NORMAL.inv_cdf(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    v = float(df)
    return z + g1 / v + g2 / v**2 + g3 / v**3 + g4 / v**4


def expanded_confidence(confidence: float, n: int) -> float:
    """The level at which to read a mean's bootstrap quantiles for ``confidence`` with ``n`` items.

    Returns ``confidence`` itself for fewer than 2 items (nothing to expand).
    """
    if n < 2:
        return confidence
    t = t_quantile((1 + confidence) / 2, n - 1)
    z = math.sqrt(n / (n - 1)) * t
    return 1.0 - 2.0 * _NORMAL.cdf(-z)
