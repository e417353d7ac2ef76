"""The mean score and pass rate of a run: naive, human-only and prediction-powered.

Items with both a judge score and a human score (from complete ground truth) are
the labelled ones; items with a judge score only are the unlabelled ones (see
``_ppi``). The pass rate uses each item's rubric ``pass_threshold``; it is left
out when no rubric has one.
"""

from __future__ import annotations

import numpy as np

from ._ppi import MeanEstimate, naive_mean, ppi_mean
from ._tables import FloatArray

__all__ = ["estimates"]


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
        out["pass_rate"] = _three(judge_pass.astype(float), human_pass.astype(float), confidence)
    return {k: v for k, v in out.items() if v}
