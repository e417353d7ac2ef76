"""Graders: per-criterion, one-shot, holistic and pairwise grading, group ranking, ensembles."""

from ._base import GradePlan, Grader
from ._combine import FailurePolicy
from ._criterion import CriterionGrader, PerCriterionGrader
from ._ensemble import JudgeSpec
from ._group import GroupRanker
from ._holistic import RubricAsJudgeGrader
from ._inputs import FewShotExample, LengthPenalty, Submission, compute_length_penalty
from ._llm_config import LLMConfig
from ._oneshot import PerCriterionOneShotGrader
from ._pairwise import PairwiseGrader
from ._spec import GraderSpec

__all__ = [
    "CriterionGrader",
    "FailurePolicy",
    "FewShotExample",
    "GradePlan",
    "Grader",
    "GraderSpec",
    "GroupRanker",
    "JudgeSpec",
    "LLMConfig",
    "LengthPenalty",
    "PairwiseGrader",
    "PerCriterionGrader",
    "PerCriterionOneShotGrader",
    "RubricAsJudgeGrader",
    "Submission",
    "compute_length_penalty",
]
