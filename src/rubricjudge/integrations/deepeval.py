"""A DeepEval metric grading with a rubricjudge rubric (``pip install 'rubricjudge[deepeval]'``).

Written against DeepEval 4.3::

    from deepeval import assert_test
    from deepeval.test_case import LLMTestCase
    from rubricjudge.integrations.deepeval import RubricMetric

    metric = RubricMetric("rubric.yaml", judge="openai/gpt-4.1-mini", threshold=0.7)

    def test_answer():
        case = LLMTestCase(input="Why is the sky blue?", actual_output=my_app(...))
        assert_test(case, [metric])

    # deepeval test run test_answers.py   (or pytest; or deepeval.evaluate([...], [metric]))

:class:`RubricMetric` grades ``actual_output`` with ``input`` as the query and
``expected_output`` (when given) as the reference answer. ``score`` is the
rubric's score in [0, 1], ``success`` is ``score >= threshold``, ``reason`` lists
each criterion's verdict and reason, and ``score_breakdown`` maps each criterion
to its verdict. The judge is rubricjudge's (any judge spec, judge or grader),
not DeepEval's ``model``. An item no judge could grade raises, as DeepEval's own
metrics do when their model fails: the metric's ``error`` is set and ``success``
is False (DeepEval's runner records the error under ``ignore_errors``, else the
test fails); the score stays None, never a number.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepeval.metrics import BaseMetric
from deepeval.test_case import LLMTestCase, SingleTurnParams

from .._errors import ConfigError, JudgeError
from .._graders._criterion import CriterionGrader
from .._model._reports import EvaluationReport
from .._model._rubric import Rubric
from ._explain import breakdown, explain_report

__all__ = ["RubricMetric"]


class RubricMetric(BaseMetric):
    """A DeepEval metric whose score is a rubricjudge rubric's score.

    Args:
        rubric: a rubric or rubric file (any format rubricjudge reads).
        judge: a judge spec (``"openai/gpt-4.1-mini"``, ``"local"`` ...), a
            :class:`~rubricjudge.judges.Judge` or a grader.
        threshold: the score at or above which the test case passes.
        judge_options: options for a judge spec (``base_url``, ``timeout_s`` ...).
        include_reason: fill ``reason`` with the per-criterion verdicts.
        async_mode: let DeepEval's runner call :meth:`a_measure` (default).
        strict_mode: pass only at a score of 1 (DeepEval's convention).
        name: the metric's name in DeepEval's results (default: ``Rubric[<name>]``).
    """

    score: float | None = None
    error: str | None = None
    reason: str | None = None
    success: bool | None = None
    _required_params = [SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT]  # type: ignore[assignment]

    def __init__(
        self,
        rubric: Rubric | str | Path,
        judge: Any = "local",
        *,
        threshold: float = 0.5,
        judge_options: dict[str, Any] | None = None,
        include_reason: bool = True,
        async_mode: bool = True,
        strict_mode: bool = False,
        name: str | None = None,
    ) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"threshold {threshold!r} must be in [0, 1]")
        self.rubric = rubric if isinstance(rubric, Rubric) else Rubric.from_file(rubric)
        self.threshold = 1.0 if strict_mode else threshold
        self.include_reason = include_reason
        self.async_mode = async_mode
        self.strict_mode = strict_mode
        # DeepEval's runner copies a metric per test case by calling __init__ with the
        # attributes named as its parameters, so each argument is kept under its own name
        self.judge = judge
        self.judge_options = judge_options
        self.name = name
        self._name = name or f"Rubric[{self.rubric.name or 'rubric'}]"
        if hasattr(judge, "grade") and hasattr(judge, "judge_ids"):
            self.grader = judge
        else:
            self.grader = CriterionGrader(judge=judge, judge_options=dict(judge_options or {}))
        self.evaluation_model = ", ".join(self.grader.judge_ids)
        self.report: EvaluationReport | None = None

    @property
    def __name__(self) -> str:  # DeepEval names metrics by this property
        return self._name

    def measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        """Grade ``test_case`` (blocking); its score, or raise when it could not be graded."""
        report = self.grader.grade_sync(self.rubric, test_case.actual_output, **_inputs(test_case))
        return self._take(report)

    async def a_measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        """Grade ``test_case``; its score, or raise when it could not be graded."""
        report = await self.grader.grade(self.rubric, test_case.actual_output, **_inputs(test_case))
        return self._take(report)

    def is_successful(self) -> bool:
        """True when graded and ``score >= threshold``."""
        score = self.score
        success = self.error is None and score is not None and score >= self._threshold()
        self.success = success
        return success

    def _take(self, report: EvaluationReport) -> float:
        self.report = report
        self.score_breakdown = breakdown(report)
        tokens = report.token_usage
        if tokens is not None:
            self.input_tokens = tokens.prompt_tokens
            self.output_tokens = tokens.completion_tokens
        self.evaluation_cost = report.completion_cost
        if report.score is None:
            self.score = None
            self.error = report.error or "no criterion could be graded"
            self.reason = explain_report(report) if self.include_reason else None
            self.success = False
            raise JudgeError(f"the rubric could not be graded: {self.error}")
        self.error = None
        self.score = report.score
        self.reason = explain_report(report) if self.include_reason else None
        self.success = report.score >= self._threshold()
        return report.score

    def _threshold(self) -> float:
        return 0.5 if self.threshold is None else float(self.threshold)


def _inputs(test_case: LLMTestCase) -> dict[str, Any]:
    if test_case.actual_output is None:
        raise ConfigError("the test case has no actual_output to grade")
    return {
        "query": test_case.input,
        "reference_submission": test_case.expected_output,
        "item_id": test_case.name,
    }
