"""Agreement between judges and human labels, and the gate between two runs."""

from ._agreement import fleiss_kappa, krippendorff_alpha
from ._coding import NaMode
from ._compute import compute_metrics
from ._gate import gate_runs
from ._gate_result import GateResult
from ._pairwise import PairwiseMetrics, pairwise_metrics
from ._results import (
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
    "NaMode",
    "PairwiseMetrics",
    "compute_metrics",
    "fleiss_kappa",
    "gate_runs",
    "krippendorff_alpha",
    "pairwise_metrics",
]
