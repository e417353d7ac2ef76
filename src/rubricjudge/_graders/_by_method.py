"""Criteria scored by a method other than a judge's verdict: code, schemas, decoding, checks.

A criterion whose ``method`` is not ``llm`` (a function, a JSON Schema, ``llm_decode``,
a trajectory or media check) runs through ``_methods.run_method``; a failure it
records goes through the grader's failure policy like a judge's (``_combine``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._errors import JudgeError
from .._judges._base import Judge
from .._model._reports import CriterionReport
from .._model._rubric import Criterion, ScoringType
from ._combine import FailurePolicy, apply_policy, combine
from ._inputs import Submission
from ._judging import Outcome

if TYPE_CHECKING:
    from .._methods._run import Functions

__all__ = ["check_methods", "grade_by_method"]


def _failed(criterion: Criterion, error: JudgeError, failure: FailurePolicy) -> CriterionReport:
    out = Outcome(judge_id=criterion.method.value, error=error, cost=0.0)
    return combine(criterion, [out], method="majority", ensemble=False, policy=failure)


async def grade_by_method(
    criterion: Criterion,
    submission: Submission,
    *,
    judge: Judge,
    functions: Functions,
    failure: FailurePolicy,
) -> CriterionReport:
    """Score ``criterion`` (its method is not ``llm``) on ``submission``."""
    if criterion.method is ScoringType.LLM_DECODE and submission.media:
        # the decode prompt is text: it would be asked about placeholders, not images
        error = JudgeError(
            "llm_decode sends the judge text only and this submission holds images or "
            "documents; score the criterion with the judge (scoring method 'llm')",
            category="bad_request",
        )
        return _failed(criterion, error, failure)
    from .._methods._run import run_method  # jinja2 and friends: not loaded by `grade --help`

    # trajectory and media checks read the submission; the other methods the answer
    whole = criterion.method in (ScoringType.TRAJECTORY, ScoringType.MEDIA)
    try:
        report = await run_method(
            criterion, submission if whole else submission.output, judge=judge, functions=functions
        )
    except JudgeError as e:
        return _failed(criterion, e, failure)
    return apply_policy(report, failure)


def check_methods(criteria: Sequence[Criterion], functions: Functions, judge: Judge) -> None:
    """Raise ConfigError now for a non-``llm`` criterion that cannot run (before any call)."""
    others = [c for c in criteria if c.method is not ScoringType.LLM]
    if not others:
        return
    from .._methods._functions import (
        FunctionRegistry,  # jinja2 and friends: not loaded by `grade --help`
    )
    from .._methods._run import check_method

    registry = FunctionRegistry.coerce(functions)
    for c in others:
        check_method(c, registry, judge)
