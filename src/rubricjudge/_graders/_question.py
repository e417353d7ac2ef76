"""One leaf criterion of one item as put to the judges, and what grading it yields.

Every call about a criterion (its answer, each repeat, an escalation, the quote
and reason calls that follow) shares the item, the submission's prompt prefix, the
criterion and its place in the rubric; :class:`Question` carries them together.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._model._reports import CriterionReport
from .._model._rubric import Criterion
from ._base import GradeContext
from ._prompts import Prefix

__all__ = ["Leaf", "Question"]

Leaf = tuple[CriterionReport, int, int]
"""A graded leaf criterion: its report, the judge calls made and how many were cached."""


@dataclass(frozen=True)
class Question:
    """A leaf criterion as asked about one item (what every call about it shares).

    ``scope_note`` says which part of a conversation to decide it on (after the
    shared prefix, so the prefix stays shared); empty when the whole counts.
    """

    ctx: GradeContext
    prefix: Prefix
    index: int
    criterion: Criterion
    scope_note: str = ""
