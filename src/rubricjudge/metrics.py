"""Agreement between a judge and human labels, with bootstrap intervals."""

from __future__ import annotations

from ._metrics import (
    CriterionMetrics,
    ItemMetrics,
    JudgeAgreement,
    MetricsReport,
    compute_metrics,
    fleiss_kappa,
    krippendorff_alpha,
)

__all__ = [
    "CriterionMetrics",
    "ItemMetrics",
    "JudgeAgreement",
    "MetricsReport",
    "compute_metrics",
    "fleiss_kappa",
    "krippendorff_alpha",
]
