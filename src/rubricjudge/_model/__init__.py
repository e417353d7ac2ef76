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

__all__ = [
    "CalibrationExample",
    "CalibrationRecord",
    "CannotAssessStrategy",
    "Criterion",
    "CriterionOption",
    "CriterionReport",
    "CriterionVerdict",
    "Escalation",
    "EvaluationReport",
    "EvidenceCheck",
    "HybridMetric",
    "JudgeVote",
    "MetricResult",
    "OptionSelection",
    "Rubric",
    "Scale",
    "ScaleScore",
    "ScaleType",
    "ScoringMethod",
    "ScoringPolicy",
    "ScoringType",
    "SectionScore",
    "TokenUsage",
    "TurnReport",
]
