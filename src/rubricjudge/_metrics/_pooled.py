"""Figures across criteria: pooled binary agreement, and how well confidence is calibrated.

The pooled figure counts every (item, binary criterion) pair once, so rubrics with
a different criterion on every item (per-item rubrics) still get one agreement
number; bootstrap resamples keep all criteria of an item together.

The confidence summary compares each judged answer's ``confidence`` with whether
it agrees with the human label: the Brier score (mean squared gap, 0 is perfect)
and the expected calibration error over ten equal-width bins (the mean gap
between confidence and observed agreement, weighted by bin size).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._classification import accuracy, cohen_kappa, matthews, per_class
from ._coding import NaMode
from ._results import ConfidenceSummary, CriterionMetrics
from ._tables import FloatArray, contingency

__all__ = ["POOLED_KEY", "confidence_summary", "pooled_binary"]

POOLED_KEY = "(pooled: every binary criterion)"
_BINS = 10


def pooled_binary(
    groups: Sequence[Any],
    weights: FloatArray,
    mode: NaMode,
    confidence: float,
    interval: Any,
) -> CriterionMetrics | None:
    """One agreement figure over every binary criterion's pairs; None without two criteria."""
    binary = [g for g in groups if g.coder.kind == "binary"]
    if len(binary) < 2:
        return None
    truth = np.concatenate(
        [[g.coder.apply_mode(int(v), mode, ordered=False) for v in g.truth] for g in binary]
    )
    judge = np.concatenate(
        [[g.coder.apply_mode(int(v), mode, ordered=False) for v in g.judge] for g in binary]
    )
    k = 3 if mode == "category" else 2
    tables = contingency(truth, judge, k, np.tile(weights, (1, len(binary))))
    precision, recall, f1, _ = per_class(tables)
    values = {
        "accuracy": accuracy(tables),
        "precision": precision[:, 1],
        "recall": recall[:, 1],
        "f1": f1[:, 1],
        "kappa": cohen_kappa(tables),
        "mcc": matthews(tables),
    }
    point = {name: float(v[0]) for name, v in values.items()}
    intervals = {name: interval(v[1:], confidence) for name, v in values.items() if v.shape[0] > 1}
    labels = ["UNMET", "MET", "N/A"] if mode == "category" else ["UNMET", "MET"]
    return CriterionMetrics(
        key=POOLED_KEY,
        kind="binary",
        labels=labels,
        n=int(round(tables[0].sum())),
        metrics=point,
        intervals=intervals,
        confusion=[[int(round(v)) for v in row] for row in tables[0]],
    )


def confidence_summary(pairs: Sequence[tuple[float, bool]]) -> ConfidenceSummary | None:
    """Brier score, expected calibration error and the reliability bins of (confidence, agreed)."""
    if not pairs:
        return None
    conf = np.array([c for c, _ in pairs], dtype=np.float64)
    agreed = np.array([1.0 if a else 0.0 for _, a in pairs])
    bins = np.minimum((conf * _BINS).astype(int), _BINS - 1)
    rows = []
    ece = 0.0
    for b in range(_BINS):
        mask = bins == b
        if not mask.any():
            continue
        mean_conf, mean_agree = float(conf[mask].mean()), float(agreed[mask].mean())
        ece += mask.sum() / len(pairs) * abs(mean_conf - mean_agree)
        rows.append(
            {
                "low": b / _BINS,
                "high": (b + 1) / _BINS,
                "n": int(mask.sum()),
                "confidence": mean_conf,
                "agreement": mean_agree,
            }
        )
    return ConfidenceSummary(
        n=len(pairs),
        mean_confidence=float(conf.mean()),
        agreement=float(agreed.mean()),
        brier=float(((conf - agreed) ** 2).mean()),
        ece=float(ece),
        bins=rows,
    )
