"""What grading produces: evaluation, criterion, pairwise and group reports; the policy."""

from __future__ import annotations

from ._model._group import GroupReport, ListwiseAnswer, TieBreak
from ._model._pairwise import CriterionPreference, OrderAnswer, PairwiseReport
from ._model._reports import (
    CalibrationRecord,
    CriterionReport,
    Escalation,
    EvaluationReport,
    EvidenceCheck,
    JudgeVote,
    MetricResult,
    OptionSelection,
    RelationRecord,
    ScaleScore,
    SectionScore,
    TokenUsage,
)
from ._model._scoring import CannotAssessStrategy, ScoringPolicy
from ._model._stability import Stability
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
