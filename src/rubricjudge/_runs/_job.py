"""One item to grade, what grades it, and grading it with any grader (def or async def)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Protocol

from .._model._reports import EvaluationReport
from .._model._rubric import Rubric

__all__ = ["Job", "RunGrader", "call_grader"]


class RunGrader(Protocol):
    """What every run calls on a grader: ``grade`` one item, with ``def`` or ``async def``.

    Every ``Grader`` of ``rubricjudge.graders`` is one; so is any object of the user's
    with this method (``evaluate`` documents it). A run may also look at a grader's
    attributes (its judges, ``escalate_to``, ``calibration``) without requiring them.
    """

    def grade(
        self,
        rubric: Rubric,
        to_grade: Any,
        /,
        *,
        query: str | None = ...,
        reference_submission: Any = ...,
        item_id: str | None = ...,
    ) -> EvaluationReport | Awaitable[EvaluationReport]:
        """Grade ``to_grade`` against ``rubric``; a judge failure is recorded in the report."""
        ...


@dataclass(frozen=True, slots=True)
class Job:
    """One item to grade: where it is in its input, its key, and what the judge is asked."""

    index: int
    key: str
    rubric: Rubric
    submission: Any
    query: str | None = None
    reference: Any = None


async def call_grader(grader: RunGrader, job: Job) -> EvaluationReport:
    """Grade one job with ``grader`` (def or async def).

    Raises:
        TypeError: the grader returned something else than an EvaluationReport.
    """
    result = grader.grade(
        job.rubric,
        job.submission,
        query=job.query,
        reference_submission=job.reference,
        item_id=job.key,
    )
    if inspect.isawaitable(result):
        result = await result
    if not isinstance(result, EvaluationReport):
        raise TypeError(f"grader returned {type(result).__name__}, not an EvaluationReport")
    return result
