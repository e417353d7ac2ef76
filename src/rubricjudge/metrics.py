"""Agreement of judges with human labels, and the gate between two runs."""

from __future__ import annotations

from ._metrics import (
    CriterionMetrics,
    GateResult,
    ItemMetrics,
    JudgeAgreement,
    LabellerAgreement,
    MetricsReport,
    compute_metrics,
    fleiss_kappa,
    gate_runs,
    krippendorff_alpha,
)

__all__ = [
    "CriterionMetrics",
    "GateResult",
    "ItemMetrics",
    "JudgeAgreement",
    "LabellerAgreement",
    "MetricsReport",
    "compute_metrics",
    "fleiss_kappa",
    "gate_runs",
    "krippendorff_alpha",
]
