"""Graders: per-criterion, one-shot and holistic grading, and judge ensembles."""

from ._base import GradePlan, Grader
from ._combine import FailurePolicy
from ._criterion import CriterionGrader, PerCriterionGrader
from ._ensemble import JudgeSpec
from ._holistic import RubricAsJudgeGrader
from ._inputs import FewShotExample, LengthPenalty, Submission, compute_length_penalty
from ._llm_config import LLMConfig
from ._oneshot import PerCriterionOneShotGrader
from ._spec import GraderSpec

__all__ = [
    "CriterionGrader",
    "FailurePolicy",
    "FewShotExample",
    "GradePlan",
    "Grader",
    "GraderSpec",
    "JudgeSpec",
    "LLMConfig",
    "LengthPenalty",
    "PerCriterionGrader",
    "PerCriterionOneShotGrader",
    "RubricAsJudgeGrader",
    "Submission",
    "compute_length_penalty",
]
