"""Graders: per criterion, one-shot, holistic and mixed-method grading, and what configures them."""

from __future__ import annotations

from ._graders import (
    CriterionGrader,
    FailurePolicy,
    FewShotExample,
    GradePlan,
    Grader,
    GraderSpec,
    JudgeSpec,
    LengthPenalty,
    LLMConfig,
    PerCriterionGrader,
    PerCriterionOneShotGrader,
    RubricAsJudgeGrader,
    compute_length_penalty,
)

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
    "compute_length_penalty",
]
