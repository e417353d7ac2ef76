"""Agreement between a judge and human labels (verdicts, preferences), with intervals."""

from __future__ import annotations

from ._metrics import (
    CriterionMetrics,
    ItemMetrics,
    JudgeAgreement,
    MetricsReport,
    PairwiseMetrics,
    compute_metrics,
    fleiss_kappa,
    krippendorff_alpha,
    pairwise_metrics,
)

__all__ = [
    "CriterionMetrics",
    "ItemMetrics",
    "JudgeAgreement",
    "MetricsReport",
    "PairwiseMetrics",
    "compute_metrics",
    "fleiss_kappa",
    "krippendorff_alpha",
    "pairwise_metrics",
]
