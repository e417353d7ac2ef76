"""Agreement between judges and human labels, with vectorised bootstrap intervals."""

from ._agreement import fleiss_kappa, krippendorff_alpha
from ._coding import NaMode
from ._compute import compute_metrics
from ._pairwise import PairwiseMetrics, pairwise_metrics
from ._results import CriterionMetrics, ItemMetrics, JudgeAgreement, MetricsReport

__all__ = [
    "CriterionMetrics",
    "ItemMetrics",
    "JudgeAgreement",
    "MetricsReport",
    "NaMode",
    "PairwiseMetrics",
    "compute_metrics",
    "fleiss_kappa",
    "krippendorff_alpha",
    "pairwise_metrics",
]
