"""The mean score and pass rate of a run: naive, human-only and prediction-powered.

Items with both a judge score and a human score (from complete ground truth) are
the labelled ones; items with a judge score only are the unlabelled ones (see
``_ppi``). The pass rate uses each item's rubric ``pass_threshold``; it is left
out when no rubric has one. A pass rate is a share, so its intervals stay in [0, 1]:
Wilson's score interval for the naive and the human-only estimates (a normal interval
around 0.2 of 10 items reached below 0), the prediction-powered one clipped to [0, 1].
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from ._ppi import MeanEstimate, naive_mean, ppi_mean
from ._tables import FloatArray

__all__ = ["estimates"]


def wilson(successes: float, n: int, confidence: float) -> tuple[float, float]:
    """Wilson's score interval of a proportion: within [0, 1] however few the items."""
    if n == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _as_share(e: MeanEstimate, confidence: float, *, exact: bool) -> MeanEstimate:
    """``e`` of 0/1 values within [0, 1]: Wilson's interval when ``exact``, else clipped.

    A prediction-powered share corrects the judge by its errors and can leave [0, 1]
    (-0.25 where the judge passed more than people did); a share cannot, so it is clipped.
    """
    if exact:
        n = e.n_labelled + e.n_unlabelled
        low, high = wilson(e.estimate * n, n, confidence)
        return e.model_copy(
            update={"low": low, "high": high, "method": f"{e.method}, Wilson interval"}
        )
    return e.model_copy(
        update={"estimate": _clip(e.estimate), "low": _clip(e.low), "high": _clip(e.high)}
    )


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def _shares(three: dict[str, MeanEstimate], confidence: float) -> dict[str, MeanEstimate]:
    return {k: _as_share(e, confidence, exact=k != "ppi") for k, e in three.items()}


def _three(judge: FloatArray, human: FloatArray, confidence: float) -> dict[str, MeanEstimate]:
    has_judge = ~np.isnan(judge)
    labelled = has_judge & ~np.isnan(human)
    unlabelled = has_judge & np.isnan(human)
    out: dict[str, MeanEstimate] = {}
    naive = naive_mean(judge[has_judge].tolist(), confidence=confidence)
    if naive is not None:
        out["naive"] = naive
    h = ppi_mean([], judge[labelled].tolist(), human[labelled].tolist(), confidence=confidence)
    if h is not None:
        out["human"] = h.model_copy(update={"method": "human labels only"})
    ppi = ppi_mean(
        judge[unlabelled].tolist(),
        judge[labelled].tolist(),
        human[labelled].tolist(),
        confidence=confidence,
    )
    if ppi is not None and ppi.n_unlabelled:
        out["ppi"] = ppi
    return out


def estimates(
    human: FloatArray, judged: FloatArray, threshold: FloatArray, confidence: float
) -> dict[str, dict[str, MeanEstimate]]:
    """Estimates of the mean score and (when thresholds exist) the pass rate."""
    out = {"mean_score": _three(judged, human, confidence)}
    has_t = ~np.isnan(threshold)
    if has_t.any():
        with np.errstate(invalid="ignore"):
            judge_pass = np.where(np.isnan(judged) | ~has_t, np.nan, judged >= threshold)
            human_pass = np.where(np.isnan(human) | ~has_t, np.nan, human >= threshold)
        rates = _three(judge_pass.astype(float), human_pass.astype(float), confidence)
        out["pass_rate"] = _shares(rates, confidence)
    return {k: v for k, v in out.items() if v}
