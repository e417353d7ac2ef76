"""Graders: per criterion, one-shot, holistic, pairwise, group grading, and their settings."""

from __future__ import annotations

from ._graders._base import GradePlan, Grader
from ._graders._combine import FailurePolicy
from ._graders._criterion import CriterionGrader, PerCriterionGrader
from ._graders._ensemble import JudgeSpec
from ._graders._group import GroupRanker
from ._graders._holistic import RubricAsJudgeGrader
from ._graders._inputs import FewShotExample, LengthPenalty, compute_length_penalty
from ._graders._llm_config import LLMConfig
from ._graders._oneshot import PerCriterionOneShotGrader
from ._graders._pairwise import PairwiseGrader
from ._graders._spec import GraderSpec
from ._model._scoring import JudgeFailurePolicy

__all__ = [
    "CriterionGrader",
    "FailurePolicy",
    "FewShotExample",
    "GradePlan",
    "Grader",
    "GraderSpec",
    "GroupRanker",
    "JudgeFailurePolicy",
    "JudgeSpec",
    "LLMConfig",
    "LengthPenalty",
    "PairwiseGrader",
    "PerCriterionGrader",
    "PerCriterionOneShotGrader",
    "RubricAsJudgeGrader",
    "compute_length_penalty",
]
