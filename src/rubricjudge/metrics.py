"""Agreement of judges with human labels (verdicts, preferences), and the gate between two runs."""

from __future__ import annotations

from ._metrics._agreement import fleiss_kappa, krippendorff_alpha
from ._metrics._compute import compute_metrics
from ._metrics._gate import gate_runs
from ._metrics._gate_result import GateResult
from ._metrics._pairwise import PairwiseMetrics, pairwise_metrics
from ._metrics._results import (
    CriterionMetrics,
    ItemMetrics,
    JudgeAgreement,
    LabellerAgreement,
    MetricsReport,
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
