"""What grading produces: evaluation, criterion, pairwise and group reports; the policy."""

from __future__ import annotations

from ._model import (
    CalibrationRecord,
    CannotAssessStrategy,
    CriterionPreference,
    CriterionReport,
    Escalation,
    EvaluationReport,
    EvidenceCheck,
    GroupReport,
    JudgeVote,
    ListwiseAnswer,
    MetricResult,
    OptionSelection,
    OrderAnswer,
    PairwiseReport,
    RelationRecord,
    ScaleScore,
    ScoringPolicy,
    SectionScore,
    Stability,
    TieBreak,
    TokenUsage,
)
from ._stats._pairwise_stats import PairwiseStats

__all__ = [
    "CalibrationRecord",
    "CannotAssessStrategy",
    "CriterionPreference",
    "CriterionReport",
    "Escalation",
    "EvaluationReport",
    "EvidenceCheck",
    "GroupReport",
    "JudgeVote",
    "ListwiseAnswer",
    "MetricResult",
    "OptionSelection",
    "OrderAnswer",
    "PairwiseReport",
    "PairwiseStats",
    "RelationRecord",
    "ScaleScore",
    "ScoringPolicy",
    "SectionScore",
    "Stability",
    "TieBreak",
    "TokenUsage",
]
