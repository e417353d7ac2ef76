"""What grading produces: evaluation and criterion reports, their parts, and the scoring policy."""

from __future__ import annotations

from ._model import (
    CalibrationRecord,
    CannotAssessStrategy,
    CriterionReport,
    Escalation,
    EvaluationReport,
    EvidenceCheck,
    JudgeVote,
    MetricResult,
    OptionSelection,
    ScaleScore,
    ScoringPolicy,
    SectionScore,
    TokenUsage,
)

__all__ = [
    "CalibrationRecord",
    "CannotAssessStrategy",
    "CriterionReport",
    "Escalation",
    "EvaluationReport",
    "EvidenceCheck",
    "JudgeVote",
    "MetricResult",
    "OptionSelection",
    "ScaleScore",
    "ScoringPolicy",
    "SectionScore",
    "TokenUsage",
]
