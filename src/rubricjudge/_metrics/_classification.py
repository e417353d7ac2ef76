"""Classification agreement from confusion tables (rows truth, columns prediction).

Every function takes tables of shape ``(R, k, k)`` and returns one value per
table, so a point estimate and 1,000 bootstrap replicates are the same call.

Undefined values follow scikit-learn where it defines one and are NaN otherwise:
precision, recall and F1 with a zero denominator are NaN (sklearn's
``zero_division=np.nan``); Cohen's kappa with no expected disagreement (both
raters constant and equal) is NaN (sklearn's ``replace_undefined_by``); MCC with
a zero denominator is 0.0, as sklearn defines it. Any metric over zero pairs is NaN.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ._tables import FloatArray

__all__ = [
    "accuracy",
    "adjacent_accuracy",
    "cohen_kappa",
    "matthews",
    "mean_abs_error",
    "per_class",
    "root_mean_sq_error",
]

KappaWeights = Literal["linear", "quadratic"] | None


def _div(num: FloatArray, den: FloatArray) -> FloatArray:
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _total(tables: FloatArray) -> FloatArray:
    return np.asarray(tables.sum(axis=(-2, -1)), dtype=np.float64)


def _distance(k: int) -> FloatArray:
    idx = np.arange(k, dtype=np.float64)
    return np.abs(idx[:, None] - idx[None, :])


def accuracy(tables: FloatArray) -> FloatArray:
    """Share of pairs on the diagonal."""
    return _div(np.trace(tables, axis1=-2, axis2=-1), _total(tables))


def adjacent_accuracy(tables: FloatArray) -> FloatArray:
    """Share of pairs at most one level apart (codes are ordered levels)."""
    near = (_distance(tables.shape[-1]) <= 1).astype(np.float64)
    return _div((tables * near).sum(axis=(-2, -1)), _total(tables))


def mean_abs_error(tables: FloatArray) -> FloatArray:
    """Mean absolute distance in levels between truth and prediction."""
    return _div((tables * _distance(tables.shape[-1])).sum(axis=(-2, -1)), _total(tables))


def root_mean_sq_error(tables: FloatArray) -> FloatArray:
    """Root mean squared distance in levels between truth and prediction."""
    sq = _distance(tables.shape[-1]) ** 2
    return np.sqrt(_div((tables * sq).sum(axis=(-2, -1)), _total(tables)))


def cohen_kappa(tables: FloatArray, weights: KappaWeights = None) -> FloatArray:
    """Cohen's kappa, unweighted or with linear / quadratic disagreement weights.

    ``1 - sum(w * observed) / sum(w * expected)``; NaN when nothing is expected to disagree.
    """
    k = tables.shape[-1]
    if weights is None:
        w = 1.0 - np.eye(k)
    elif weights == "linear":
        w = _distance(k)
    elif weights == "quadratic":
        w = _distance(k) ** 2
    else:
        raise ValueError(f"kappa weights {weights!r}; use None, 'linear' or 'quadratic'")
    n = _total(tables)
    rows = tables.sum(axis=-1)
    cols = tables.sum(axis=-2)
    expected = _div(rows[..., :, None] * cols[..., None, :], n[..., None, None])
    observed_d = (tables * w).sum(axis=(-2, -1))
    expected_d = (np.nan_to_num(expected) * w).sum(axis=(-2, -1))
    return 1.0 - _div(observed_d, expected_d)


def matthews(tables: FloatArray) -> FloatArray:
    """Matthews correlation coefficient (the multiclass form); 0.0 when undefined."""
    n = _total(tables)
    correct = np.trace(tables, axis1=-2, axis2=-1)
    rows = tables.sum(axis=-1)
    cols = tables.sum(axis=-2)
    cov_tp = correct * n - (rows * cols).sum(axis=-1)
    cov_pp = n**2 - (cols * cols).sum(axis=-1)
    cov_tt = n**2 - (rows * rows).sum(axis=-1)
    den = np.sqrt(cov_pp * cov_tt)
    out = _div(cov_tp, den)
    out[(den == 0) & (n > 0)] = 0.0
    return out


def per_class(tables: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """(precision, recall, F1, support) per class, each of shape ``(R, k)``."""
    tp = np.diagonal(tables, axis1=-2, axis2=-1)
    support = tables.sum(axis=-1)
    predicted = tables.sum(axis=-2)
    precision = _div(tp, predicted)
    recall = _div(tp, support)
    f1 = _div(2.0 * tp, support + predicted)
    return precision, recall, f1, support
