"""The rubric model: criteria, rubrics, verdicts, reports and the scoring rules."""

from ._criterion import (
    CalibrationExample,
    Criterion,
    CriterionOption,
    CriterionVerdict,
    Scale,
    ScaleType,
    ScoringMethod,
    ScoringType,
)
from ._group import GroupReport, ListwiseAnswer, TieBreak
from ._pairwise import CriterionPreference, OrderAnswer, PairwiseReport
from ._pairwise_stats import PairwiseStats
from ._reports import (
    CalibrationRecord,
    CriterionReport,
    Escalation,
    EvaluationReport,
    EvidenceCheck,
    JudgeVote,
    MetricResult,
    OptionSelection,
    ScaleScore,
    SectionScore,
    TokenUsage,
    TurnReport,
)
from ._rubric import HybridMetric, Rubric
from ._scoring import CannotAssessStrategy, ScoringPolicy
from ._stability import Stability

__all__ = [
    "CalibrationExample",
    "CalibrationRecord",
    "CannotAssessStrategy",
    "Criterion",
    "CriterionOption",
    "CriterionPreference",
    "CriterionReport",
    "CriterionVerdict",
    "Escalation",
    "EvaluationReport",
    "EvidenceCheck",
    "GroupReport",
    "HybridMetric",
    "JudgeVote",
    "ListwiseAnswer",
    "MetricResult",
    "OptionSelection",
    "OrderAnswer",
    "PairwiseReport",
    "PairwiseStats",
    "Rubric",
    "Scale",
    "ScaleScore",
    "ScaleType",
    "ScoringMethod",
    "ScoringPolicy",
    "ScoringType",
    "SectionScore",
    "Stability",
    "TieBreak",
    "TokenUsage",
    "TurnReport",
]
