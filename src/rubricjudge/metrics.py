"""Agreement of judges with human labels (verdicts, preferences), and the gate between two runs."""

from __future__ import annotations

from ._metrics import (
    CriterionMetrics,
    GateResult,
    ItemMetrics,
    JudgeAgreement,
    LabellerAgreement,
    MetricsReport,
    PairwiseMetrics,
    compute_metrics,
    fleiss_kappa,
    gate_runs,
    krippendorff_alpha,
    pairwise_metrics,
)

__all__ = [
    "CriterionMetrics",
    "GateResult",
    "ItemMetrics",
    "JudgeAgreement",
    "LabellerAgreement",
    "MetricsReport",
    "PairwiseMetrics",
    "compute_metrics",
    "fleiss_kappa",
    "gate_runs",
    "krippendorff_alpha",
    "pairwise_metrics",
]
