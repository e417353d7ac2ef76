"""What the rubric model calls on a grader: one async ``grade`` method.

Graders live above the model (``_graders``, ``_hybrid``), so the model names here
what it needs of one, and :meth:`Rubric.grade` is typed without importing a grader.
The protocol is generic in the rubric and the report because importing either
here would close a circle (``_rubric`` imports this module; ``_reports`` imports
``_rubric``). Every ``Grader`` of ``_graders``, and ``HybridGrader``, is an
``AsyncGrader[Rubric, EvaluationReport]``. The runs, which also take ``def``
graders, have their own protocol (``rubricjudge._runs._job.RunGrader``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

__all__ = ["AsyncGrader"]

RubricT = TypeVar("RubricT", contravariant=True)
ReportT = TypeVar("ReportT", covariant=True)


class AsyncGrader(Protocol[RubricT, ReportT]):
    """Grades one submission against a rubric (``CriterionGrader``, ``HybridGrader``...)."""

    async def grade(
        self,
        rubric: RubricT,
        to_grade: Any,
        /,
        *,
        query: str | None = ...,
        reference_submission: Any = ...,
        item_id: str | None = ...,
        examples: Sequence[Any] | None = ...,
    ) -> ReportT:
        """Grade ``to_grade`` against ``rubric``; a judge failure is recorded in the report."""
        ...
