"""rubricate: rubric-based evaluation of LLM outputs."""

from ._errors import (
    ConfigError,
    JudgeError,
    Problem,
    RubricateError,
    RubricError,
    RunError,
    UsageError,
    VerdictError,
)
from ._model import (
    CalibrationExample,
    Criterion,
    CriterionOption,
    CriterionVerdict,
    HybridMetric,
    Rubric,
    Scale,
    ScaleType,
    ScoringMethod,
    ScoringType,
)
from ._reports import (
    CriterionReport,
    EvaluationReport,
    JudgeVote,
    OptionSelection,
    SectionScore,
    TokenUsage,
)
from ._scoring import CannotAssessStrategy, ScoringPolicy

__version__ = "0.1.0"

__all__ = [
    "CalibrationExample",
    "CannotAssessStrategy",
    "ConfigError",
    "Criterion",
    "CriterionOption",
    "CriterionReport",
    "CriterionVerdict",
    "EvaluationReport",
    "HybridMetric",
    "JudgeError",
    "JudgeVote",
    "OptionSelection",
    "Problem",
    "Rubric",
    "RubricError",
    "RubricateError",
    "RunError",
    "Scale",
    "ScaleType",
    "ScoringMethod",
    "ScoringPolicy",
    "ScoringType",
    "SectionScore",
    "TokenUsage",
    "UsageError",
    "VerdictError",
]
