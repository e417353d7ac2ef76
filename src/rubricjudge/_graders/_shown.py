"""What judges are shown of a conversation, and what a grader does when it cannot show it.

The shared prefix holds the conversation rendered within the judges' budget; past
the budget under ``over_budget="error"`` there is no prefix but the error, and
every judged criterion records it unasked (:func:`refused`), priced by the failure
policy like a judge failure. Either way the report's ``metadata["conversation"]``
says what the judges were shown (:func:`conversation_record`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._errors import JudgeError
from .._model._reports import EvaluationReport
from .._model._rubric import Criterion
from ._judging import Outcome
from ._prompts import Prefix

if TYPE_CHECKING:
    from ._base import GradeContext
    from ._criterion import CriterionGrader, Leaf

__all__ = ["conversation_record", "refused", "shared_prefix", "with_conversation_record"]


def shared_prefix(grader: CriterionGrader, ctx: GradeContext) -> Prefix | JudgeError:
    """The prefix of every criterion's prompt, or the over-budget error that stops it."""
    try:
        return grader.prefix(ctx)
    except JudgeError as e:
        if e.category != "over_budget":
            raise
        return e


def refused(grader: CriterionGrader, criterion: Criterion, index: int, error: JudgeError) -> Leaf:
    """The result of a judged criterion whose judges could not be asked (``error``)."""
    outcomes = [
        Outcome(judge_id=m.id, weight=m.weight, error=error, calls=0) for m in grader.members()
    ]
    return grader.decide(criterion, index, outcomes)


def conversation_record(grader: Any, ctx: GradeContext) -> dict[str, Any]:
    """What a report keeps about the conversation the judges were shown."""
    try:
        return dict(grader.render(ctx).record())
    except JudgeError as e:
        return {
            "messages": len(ctx.submission.conversation or ()),
            "budget_tokens": grader.budget(),
            "over_budget": "error",
            "error": str(e),
        }


def with_conversation_record(
    grader: Any, ctx: GradeContext, report: EvaluationReport
) -> EvaluationReport:
    """``report`` with what the judges were shown of a conversation in its metadata."""
    if ctx.submission.conversation is None:
        return report
    record = conversation_record(grader, ctx)
    return report.model_copy(update={"metadata": {**report.metadata, "conversation": record}})
