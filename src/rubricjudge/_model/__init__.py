"""The rubric model: criteria, rubrics, verdicts, reports and the scoring rules."""

from ._criterion import (
    CalibrationExample,
    Criterion,
    CriterionOption,
    CriterionVerdict,
    Gate,
    Scale,
    ScaleType,
    ScoringMethod,
    ScoringType,
)
from ._group import GroupReport, ListwiseAnswer, TieBreak
from ._pairwise import CriterionPreference, OrderAnswer, PairwiseReport
from ._relations import Implication, Relation
from ._reports import (
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
    "Gate",
    "GroupReport",
    "HybridMetric",
    "Implication",
    "JudgeVote",
    "ListwiseAnswer",
    "MetricResult",
    "OptionSelection",
    "OrderAnswer",
    "PairwiseReport",
    "Relation",
    "RelationRecord",
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
