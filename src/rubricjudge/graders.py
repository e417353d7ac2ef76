"""Graders: per criterion, one-shot, holistic, pairwise, group grading, and their settings."""

from __future__ import annotations

from ._graders import (
    CriterionGrader,
    FailurePolicy,
    FewShotExample,
    GradePlan,
    Grader,
    GraderSpec,
    GroupRanker,
    JudgeSpec,
    LengthPenalty,
    LLMConfig,
    PairwiseGrader,
    PerCriterionGrader,
    PerCriterionOneShotGrader,
    RubricAsJudgeGrader,
    compute_length_penalty,
)
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
