"""The metric kernels against scikit-learn, SciPy, krippendorff and statsmodels."""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from rubricjudge._metrics._agreement import fleiss_kappa, krippendorff_alpha
from rubricjudge._metrics._classification import (
    accuracy,
    adjacent_accuracy,
    cohen_kappa,
    matthews,
    mean_abs_error,
    per_class,
    root_mean_sq_error,
)
from rubricjudge._metrics._correlation import kendall_tau_b, pearson, spearman, table_points
from rubricjudge._metrics._tables import contingency, ones_weights, resample_weights


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _table(t, p, k):
    return contingency(np.asarray(t), np.asarray(p), k, ones_weights(len(t)))


def _same(a: float, b: float) -> None:
    if np.isnan(b):
        assert np.isnan(a), (a, b)
    else:
        assert a == pytest.approx(b, abs=1e-10), (a, b)


CASES = [(seed, k, n) for seed in range(12) for k in (2, 3, 5) for n in (1, 2, 7, 60)]


def _labels(seed: int, k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k, n)
    # correlated predictions, with some constant and degenerate draws
    p = np.where(rng.random(n) < 0.6, t, rng.integers(0, k, n))
    if seed % 4 == 1:
        p = np.full(n, t[0])
    if seed % 4 == 2:
        t = np.full(n, p[0])
    if seed % 6 == 3:
        t, p = np.zeros(n, int), np.zeros(n, int)
    return t, p


@pytest.mark.parametrize(("seed", "k", "n"), CASES)
def test_classification_matches_sklearn(seed: int, k: int, n: int) -> None:
    t, p = _labels(seed, k, n)
    labels = list(range(k))
    tab = _table(t, p, k)
    _same(accuracy(tab)[0], skm.accuracy_score(t, p))
    for w in (None, "linear", "quadratic"):
        want = _quiet(skm.cohen_kappa_score, t, p, labels=labels, weights=w)
        _same(cohen_kappa(tab, w)[0], want)
    _same(matthews(tab)[0], _quiet(skm.matthews_corrcoef, t, p))
    prec, rec, f1, sup = per_class(tab)
    sp, sr, sf, ss = _quiet(
        skm.precision_recall_fscore_support, t, p, labels=labels, zero_division=np.nan
    )
    for j in range(k):
        _same(prec[0, j], sp[j])
        _same(rec[0, j], sr[j])
        _same(f1[0, j], sf[j])
        assert sup[0, j] == ss[j]
    np.testing.assert_array_equal(tab[0], skm.confusion_matrix(t, p, labels=labels))
    _same(mean_abs_error(tab)[0], skm.mean_absolute_error(t, p))
    _same(root_mean_sq_error(tab)[0], np.sqrt(skm.mean_squared_error(t, p)))
    _same(adjacent_accuracy(tab)[0], float(np.mean(np.abs(t - p) <= 1)))


@pytest.mark.parametrize(("seed", "k", "n"), CASES)
def test_table_correlations_match_scipy(seed: int, k: int, n: int) -> None:
    t, p = _labels(seed, k, n)
    x, y, w = table_points(_table(t, p, k))
    _same(spearman(x, y, w)[0], _quiet(stats.spearmanr, t, p).statistic)
    _same(kendall_tau_b(x, y, w)[0], _quiet(stats.kendalltau, t, p).statistic)


@pytest.mark.parametrize("seed", range(15))
def test_point_correlations_match_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 80))
    x = rng.normal(size=n).round(int(seed % 3))  # rounding makes ties
    y = (x + rng.normal(size=n)).round(1)
    if seed == 4:
        y = np.full(n, 0.5)
    w = ones_weights(n)
    _same(pearson(x, y, w)[0], _quiet(stats.pearsonr, x, y).statistic)
    _same(spearman(x, y, w)[0], _quiet(stats.spearmanr, x, y).statistic)
    _same(kendall_tau_b(x, y, w)[0], _quiet(stats.kendalltau, x, y).statistic)


def test_bootstrap_rows_equal_explicit_resamples() -> None:
    rng = np.random.default_rng(7)
    n, k = 40, 4
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.5, t, rng.integers(0, k, n))
    xs = rng.normal(size=n).round(1)
    ys = (xs + rng.normal(size=n)).round(1)
    weights = resample_weights(n, 25, seed=3)
    assert weights.sum(axis=1).tolist() == [n] * 25
    tabs = contingency(t, p, k, weights)
    qwk = cohen_kappa(tabs, "quadratic")
    tx, ty, tw = table_points(tabs)
    sp = spearman(tx, ty, tw)
    kt = kendall_tau_b(xs, ys, weights)
    pr = spearman(xs, ys, weights)
    for r in range(25):
        idx = np.repeat(np.arange(n), weights[r].astype(int))
        labels = list(range(k))
        _same(
            qwk[r],
            _quiet(skm.cohen_kappa_score, t[idx], p[idx], labels=labels, weights="quadratic"),
        )
        _same(sp[r], _quiet(stats.spearmanr, t[idx], p[idx]).statistic)
        _same(kt[r], _quiet(stats.kendalltau, xs[idx], ys[idx]).statistic)
        _same(pr[r], _quiet(stats.spearmanr, xs[idx], ys[idx]).statistic)


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_matches_package(seed: int, level: str) -> None:
    rng = np.random.default_rng(seed)
    raters, units = int(rng.integers(2, 6)), int(rng.integers(3, 40))
    truth = rng.integers(1, 5, units)
    data = np.where(rng.random((raters, units)) < 0.7, truth, rng.integers(1, 5, (raters, units)))
    data = data.astype(float)
    data[rng.random((raters, units)) < 0.15] = np.nan
    if np.unique(data[~np.isnan(data)]).size < 2:
        pytest.skip("degenerate draw")
    want = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert krippendorff_alpha(data, level) == pytest.approx(want, abs=1e-10)  # type: ignore[arg-type]


def test_krippendorff_degenerate_is_nan() -> None:
    assert np.isnan(krippendorff_alpha(np.ones((3, 5))))
    assert np.isnan(krippendorff_alpha(np.array([[1.0, np.nan], [np.nan, 2.0]])))


@pytest.mark.parametrize("seed", range(10))
def test_fleiss_matches_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    units, cats, raters = int(rng.integers(2, 30)), int(rng.integers(2, 5)), int(rng.integers(2, 7))
    counts = np.zeros((units, cats), int)
    for u in range(units):
        counts[u] = np.bincount(rng.integers(0, cats, raters), minlength=cats)
    assert fleiss_kappa(counts) == pytest.approx(sm_fleiss(counts), abs=1e-10)


def test_fleiss_degenerate() -> None:
    assert np.isnan(fleiss_kappa([[3, 0], [3, 0]]))
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([[3, 0], [1, 0]])
