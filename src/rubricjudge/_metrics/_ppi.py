"""Prediction-powered estimates of a mean: judge scores everywhere, human labels on some.

Prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic,
"Prediction-powered inference", Science 382, 2023) estimates the mean of a
human-labelled quantity ``Y`` from a small labelled set and a model's predictions
``f`` on many unlabelled items:

    theta = mean(f over the N unlabelled items) - mean(f - Y over the n labelled items)

The second term, the *rectifier*, removes the judge's bias, so the estimate is
unbiased however biased the judge is, and its variance
``var(f_unlabelled) / N + var(f - Y) / n`` is small when the judge tracks the
humans. The interval is the normal (CLT) interval of that estimate. With no
unlabelled item it is the mean of the labelled items' human values.

The *naive* estimate is the judge's own mean over every item, with its classical
interval: it is what one reports without human labels, and is biased exactly as
much as the judge is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

from pydantic import BaseModel, ConfigDict

__all__ = ["MeanEstimate", "naive_mean", "ppi_mean"]


class MeanEstimate(BaseModel):
    """A mean with its confidence interval and what it was computed from."""

    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")

    estimate: float
    low: float
    high: float
    n_labelled: int
    n_unlabelled: int
    method: str


def _var(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return math.nan
    m = sum(values) / n
    return sum((v - m) ** 2 for v in values) / (n - 1)


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf((1 + confidence) / 2)


def ppi_mean(
    judge_unlabelled: Sequence[float],
    judge_labelled: Sequence[float],
    human_labelled: Sequence[float],
    *,
    confidence: float = 0.95,
) -> MeanEstimate | None:
    """The prediction-powered mean of the human values, or None without labelled pairs.

    ``judge_labelled[i]`` and ``human_labelled[i]`` belong to the same item.
    """
    if len(judge_labelled) != len(human_labelled):
        raise ValueError("judge_labelled and human_labelled must pair up item by item")
    n, big_n = len(human_labelled), len(judge_unlabelled)
    if n == 0:
        return None
    z = _z(confidence)
    if big_n == 0:
        est = sum(human_labelled) / n
        half = z * math.sqrt(_var(human_labelled) / n)
        return MeanEstimate(
            estimate=est,
            low=est - half,
            high=est + half,
            n_labelled=n,
            n_unlabelled=0,
            method="human labels only (no unlabelled item)",
        )
    rect = [f - y for f, y in zip(judge_labelled, human_labelled, strict=True)]
    est = sum(judge_unlabelled) / big_n - sum(rect) / n
    half = z * math.sqrt(_var(judge_unlabelled) / big_n + _var(rect) / n)
    return MeanEstimate(
        estimate=est,
        low=est - half,
        high=est + half,
        n_labelled=n,
        n_unlabelled=big_n,
        method="prediction-powered (Angelopoulos et al., 2023)",
    )


def naive_mean(judge_all: Sequence[float], *, confidence: float = 0.95) -> MeanEstimate | None:
    """The judge's own mean over every item with its classical interval."""
    n = len(judge_all)
    if n == 0:
        return None
    est = sum(judge_all) / n
    half = _z(confidence) * math.sqrt(_var(judge_all) / n)
    return MeanEstimate(
        estimate=est,
        low=est - half,
        high=est + half,
        n_labelled=0,
        n_unlabelled=n,
        method="judge only (naive)",
    )
