"""What judges are shown of a conversation, and what a grader does when it cannot show it.

The shared prefix holds the conversation rendered within the judges' budget; past
the budget under ``over_budget="error"`` there is no prefix but the error, and
every judged criterion records it unasked (:func:`unasked`), priced by the failure
policy like a judge failure. Either way the report's ``metadata["conversation"]``
says what the judges were shown (:func:`conversation_record`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from .._conversations._render_prompt import RenderedSubmission
from .._errors import JudgeError
from .._model._reports import EvaluationReport
from ._base import GradeContext
from ._judging import Member, Outcome
from ._prompts import Prefix

__all__ = [
    "Shows",
    "conversation_record",
    "shared_prefix",
    "unasked",
    "with_conversation_record",
]


class Shows(Protocol):
    """What a grader tells about the submission it shows its judges (every grader does)."""

    def render(self, ctx: GradeContext, keep: Sequence[int] = ()) -> RenderedSubmission:
        """The submission as the judges see it, within the budget."""
        ...

    def budget(self) -> int:
        """The conversation budget of the grader's judges, in approximate tokens."""
        ...


def shared_prefix(
    prefix: Callable[[GradeContext], Prefix], ctx: GradeContext
) -> Prefix | JudgeError:
    """``prefix(ctx)``, the start of every criterion's prompt, or the over-budget error."""
    try:
        return prefix(ctx)
    except JudgeError as e:
        if e.category != "over_budget":
            raise
        return e


def unasked(members: Sequence[Member], error: JudgeError) -> list[Outcome]:
    """The outcomes of judges that could not be asked because of ``error`` (no call made)."""
    return [Outcome(judge_id=m.id, weight=m.weight, error=error, calls=0) for m in members]


def conversation_record(grader: Shows, ctx: GradeContext) -> dict[str, Any]:
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
    grader: Shows, ctx: GradeContext, report: EvaluationReport
) -> EvaluationReport:
    """``report`` with what the judges were shown of a conversation in its metadata."""
    if ctx.submission.conversation is None:
        return report
    record = conversation_record(grader, ctx)
    return report.model_copy(update={"metadata": {**report.metadata, "conversation": record}})
