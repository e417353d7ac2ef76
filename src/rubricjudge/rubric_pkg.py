"""The ``rubric`` package's names, for code written against it.

``PerCriterionGrader`` is :class:`rubricjudge.CriterionGrader`; every grader takes
``generate_fn=`` (a ``generate_fn(system_prompt, user_prompt)`` callable, sync or
async, as the ``rubric`` package's graders do), wrapped in a :class:`CallableJudge`.
"""

from __future__ import annotations

from ._graders import LLMConfig, PerCriterionGrader, PerCriterionOneShotGrader, RubricAsJudgeGrader
from ._judges._callable import CallableJudge
from ._model import Criterion, EvaluationReport, Rubric

__all__ = [
    "CallableJudge",
    "Criterion",
    "EvaluationReport",
    "LLMConfig",
    "PerCriterionGrader",
    "PerCriterionOneShotGrader",
    "Rubric",
    "RubricAsJudgeGrader",
]
