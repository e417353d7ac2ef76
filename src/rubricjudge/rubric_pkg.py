"""The ``rubric`` package's names, for code written against it.

``PerCriterionGrader`` is :class:`rubricjudge.CriterionGrader`; every grader takes
``generate_fn=`` (a ``generate_fn(system_prompt, user_prompt)`` callable, sync or
async, as the ``rubric`` package's graders do), wrapped in a :class:`CallableJudge`.
"""

from __future__ import annotations

from ._graders._criterion import PerCriterionGrader
from ._graders._holistic import RubricAsJudgeGrader
from ._graders._llm_config import LLMConfig
from ._graders._oneshot import PerCriterionOneShotGrader
from ._judges._callable import CallableJudge
from ._model._criterion import Criterion
from ._model._reports import EvaluationReport
from ._model._rubric import Rubric

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
