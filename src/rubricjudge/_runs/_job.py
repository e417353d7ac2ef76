"""One item to grade, and grading it with any grader (def or async def)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from .._model._reports import EvaluationReport

__all__ = ["Job", "call_grader"]


@dataclass(frozen=True, slots=True)
class Job:
    """One item to grade: where it is in its input, its key, and what the judge is asked."""

    index: int
    key: str
    rubric: Any
    submission: Any
    query: str | None = None
    reference: Any = None


async def call_grader(grader: Any, job: Job) -> EvaluationReport:
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
