"""An MLflow GenAI scorer grading with a rubricjudge rubric (``pip install 'rubricjudge[mlflow]'``).

Written against MLflow 3.17::

    import mlflow
    from rubricjudge.integrations.mlflow import rubric_scorer

    mlflow.genai.evaluate(
        data=[{"inputs": {"question": "Why is the sky blue?"}, "outputs": "Rayleigh ..."}],
        scorers=[rubric_scorer("rubric.yaml", judge="openai/gpt-4.1-mini")],
    )

The scorer returns one MLflow ``Feedback`` per criterion (named
``<name>/<criterion>``; value: the verdict ``MET``/``UNMET``/``CANNOT_ASSESS``, the
option's label or the scale score; rationale: the judge's reason; source: the
judge, as ``LLM_JUDGE``) and one for the rubric's score (named ``<name>``, a number
in [0, 1], which MLflow averages). A criterion whose judge failed is a Feedback
with an ``error`` and no value; an item no judge could grade gets an error on the
score's Feedback too: never a number. ``evaluate --mlflow EXPERIMENT`` logs a whole
``rubricjudge evaluate`` run instead (docs/integrations.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mlflow.entities import AssessmentSource, Feedback
from mlflow.genai.scorers import scorer

from .._errors import JudgeError
from .._graders._criterion import CriterionGrader
from .._model._reports import EvaluationReport
from .._model._rubric import Rubric
from ._explain import answer_of, explain_report, leaves, name_of

__all__ = ["feedbacks", "rubric_scorer"]


def rubric_scorer(
    rubric: Rubric | str | Path,
    judge: Any = "local",
    *,
    name: str = "rubric",
    judge_options: dict[str, Any] | None = None,
) -> Any:
    """An MLflow scorer: ``outputs`` graded against ``rubric``, ``inputs`` as the query.

    Args:
        rubric: a rubric or rubric file (any format rubricjudge reads).
        judge: a judge spec (``"openai/gpt-4.1-mini"``, ``"local"`` ...), a judge or a grader.
        name: the scorer's name, and the prefix of its Feedback names.
        judge_options: options for a judge spec (``base_url``, ``timeout_s`` ...).

    An ``expected_response`` in the row's ``expectations`` is the reference answer.
    """
    the_rubric = rubric if isinstance(rubric, Rubric) else Rubric.from_file(rubric)
    if hasattr(judge, "grade") and hasattr(judge, "judge_ids"):
        grader = judge
    else:
        grader = CriterionGrader(judge=judge, judge_options=dict(judge_options or {}))
    source = AssessmentSource(source_type="LLM_JUDGE", source_id=",".join(grader.judge_ids))

    def grade(inputs: Any, outputs: Any, expectations: Any = None) -> list[Feedback]:
        reference = (expectations or {}).get("expected_response")
        report: EvaluationReport = grader.grade_sync(
            the_rubric,
            _text(outputs),
            query=_text(inputs) if inputs is not None else None,
            reference_submission=_text(reference) if reference is not None else None,
        )
        return feedbacks(report, name=name, source=source)

    grade.__name__ = name
    return scorer(name=name)(grade)


def feedbacks(report: EvaluationReport, *, name: str, source: Any) -> list[Feedback]:
    """The report as Feedback: one per criterion, then the score's."""
    out = []
    for c in leaves(report):
        label = f"{name}/{name_of(c)}"
        if c.error is not None:
            out.append(Feedback(name=label, error=JudgeError(c.error), source=source))
        else:
            out.append(Feedback(name=label, value=answer_of(c), rationale=c.reason, source=source))
    meta = {"judge_calls": str(report.judge_calls), "judge_errors": str(report.error_count)}
    if report.score is None:
        error = report.error or "no criterion could be graded"
        out.append(Feedback(name=name, error=JudgeError(error), source=source, metadata=meta))
    else:
        out.append(
            Feedback(
                name=name,
                value=report.score,
                rationale=explain_report(report),
                source=source,
                metadata=meta,
            )
        )
    return out


def _text(value: Any) -> str:
    """Text of MLflow's ``inputs``/``outputs``: a string, a one-field dict's value, or JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        (only,) = value.values()
        if isinstance(only, str):
            return only
    return json.dumps(value, ensure_ascii=False, default=str)
