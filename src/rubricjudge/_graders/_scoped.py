"""Criteria scoped to part of a conversation: the final turn, every turn, the tool calls.

The judge always sees the conversation (so the prompt's start stays shared by every
criterion of one submission) and a line after it says which part to decide the
criterion on. ``every_assistant_turn`` asks once per assistant turn and combines the
turns' verdicts:

* ``all`` (the default; in statement terms, the lowest credit): MET only when every
  turn is MET; an option criterion gets the turns' lowest-credit option;
* ``any`` (the default on a penalty: a fault in any turn is charged): the highest;
* ``mean``: the score counts the mean credit (``turn_credit``); the verdict shown is
  the majority's (the option nearest the mean).

A turn whose judges failed is recorded on it; it decides nothing: under ``all`` /
``any`` the criterion's verdict stands when the other turns settle it (one UNMET
turn settles ``all``), else the criterion records the failure; under ``mean`` any
failed turn fails the criterion. A turn elided from the shared rendering (a
conversation over the budget, under ``over_budget="elide"``) is asked with a
rendering that keeps it. On a text submission a scope changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from .._aio import gather_all
from .._conversations._conversation import AssistantTurn
from .._conversations._render_prompt import RenderedSubmission
from .._errors import JudgeError
from .._model._reports import (
    CriterionReport,
    OptionSelection,
    ScaleScore,
    TokenUsage,
    TurnReport,
)
from .._model._rubric import Criterion, CriterionVerdict
from .._model._scoring import report_value
from ._base import GradeContext
from ._prompts import Prefix
from ._question import Leaf, Question

__all__ = ["TurnGrader", "combine_turns", "is_scoped", "scope_calls", "scoped_leaf"]


class TurnGrader(Protocol):
    """What grading a scoped criterion asks of its grader (the per-criterion one)."""

    @property
    def over_budget(self) -> str:
        """``"elide"`` when turns past the budget are left out of the shared rendering."""
        ...

    def render(self, ctx: GradeContext, keep: Sequence[int] = ()) -> RenderedSubmission:
        """The submission as the judges see it, within the budget."""
        ...

    def prefix(self, ctx: GradeContext, keep: Sequence[int] = ()) -> Prefix:
        """The shared prompt prefix, keeping the messages ``keep`` if turns are elided."""
        ...

    async def ask_all(self, question: Question) -> Leaf:
        """Ask every judge ``question`` and decide the criterion from their answers."""
        ...

    def refuse(self, criterion: Criterion, index: int, error: JudgeError) -> Leaf:
        """The result of a criterion whose judges could not be asked (``error``)."""
        ...


def is_scoped(ctx: GradeContext, criterion: Criterion) -> bool:
    """True when ``criterion`` is decided on part of ``ctx``'s conversation."""
    return ctx.submission.conversation is not None and criterion.scope not in (
        None,
        "conversation",
    )


def _span(turn: AssistantTurn) -> str:
    if turn.first == turn.last:
        return f"message #{turn.first + 1}"
    return f"messages #{turn.first + 1} to #{turn.last + 1}"


def _turn_note(turn: AssistantTurn, total: int, final: bool) -> str:
    which = (
        "the assistant's final turn" if final else f"the assistant's turn {turn.number} of {total}"
    )
    return (
        f"Scope: decide this only on {which}, {_span(turn)} of the conversation above; the "
        "other messages are context.\n"
    )


_TOOLS_NOTE = (
    "Scope: decide this only on the assistant's tool calls (the lines 'calls tool N') and "
    "their results; the other messages are context.\n"
)


def _unassessable(criterion: Criterion, why: str) -> Leaf:
    report = CriterionReport(
        criterion=criterion, verdict=CriterionVerdict.CANNOT_ASSESS, reason=why, completion_cost=0.0
    )
    return report, 0, 0


def scope_calls(ctx: GradeContext, criterion: Criterion) -> int:
    """How many times each judge is asked about ``criterion`` (for plans)."""
    conv = ctx.submission.conversation
    if conv is None or criterion.scope != "every_assistant_turn":
        return 1
    return len(conv.assistant_turns())


def _prefix_for(
    grader: TurnGrader, ctx: GradeContext, prefix: Prefix, turn: AssistantTurn
) -> Prefix:
    """``prefix``, or one that keeps ``turn`` when the budget elided it."""
    kept = grader.render(ctx).kept if grader.over_budget == "elide" else None
    if kept is None or all(i in kept for i in range(turn.first, turn.last + 1)):
        return prefix
    return grader.prefix(ctx, keep=range(turn.first, turn.last + 1))


async def scoped_leaf(grader: TurnGrader, question: Question) -> Leaf:
    """Grade a scoped criterion of a conversation (see the module docstring)."""
    ctx, criterion = question.ctx, question.criterion
    conv = ctx.submission.conversation
    assert conv is not None
    if criterion.scope == "tool_calls":
        if not conv.tool_uses():
            return _unassessable(criterion, "the conversation has no tool calls to judge")
        return await grader.ask_all(replace(question, scope_note=_TOOLS_NOTE))
    turns = conv.assistant_turns()
    if not turns:
        return _unassessable(criterion, "the conversation has no assistant turn to judge")
    if criterion.scope == "final_assistant_turn":
        final = turns[-1]
        try:
            here = _prefix_for(grader, ctx, question.prefix, final)
        except JudgeError as e:  # even the final turn with the first ones does not fit
            return grader.refuse(criterion, question.index, e)
        note = _turn_note(final, len(turns), True)
        return await grader.ask_all(replace(question, prefix=here, scope_note=note))

    async def one(turn: AssistantTurn) -> Leaf:
        try:
            here = _prefix_for(grader, ctx, question.prefix, turn)
        except JudgeError as e:  # even this turn with the first ones does not fit
            return grader.refuse(criterion, question.index, e)
        note = _turn_note(turn, len(turns), False)
        return await grader.ask_all(replace(question, prefix=here, scope_note=note))

    results = await gather_all([one(t) for t in turns])
    report = combine_turns(criterion, turns, [r for r, _, _ in results])
    return report, sum(c for _, c, _ in results), sum(k for _, _, k in results)


# -- combining the turns ---------------------------------------------------------------
def _turn(turn: AssistantTurn, r: CriterionReport) -> TurnReport:
    return TurnReport(
        turn=turn.number,
        first=turn.first + 1,
        last=turn.last + 1,
        verdict=r.verdict,
        selection=r.selection,
        scale_score=r.scale_score,
        reason=r.reason,
        error=r.error,
        error_category=r.error_category,
        confidence=r.confidence,
    )


def _credit(r: CriterionReport) -> float | None:
    if r.error is not None or r.is_na:
        return None
    return report_value(r)


def _nearest(criterion: Criterion, credit: float) -> dict[str, Any]:
    if criterion.is_multi_choice:
        opts = criterion.options or []
        best = min(
            (i for i, o in enumerate(opts) if not o.na), key=lambda i: abs(opts[i].value - credit)
        )
        opt = opts[best]
        return {"selection": OptionSelection(index=best, label=opt.label, value=opt.value)}
    if criterion.scale is not None:
        s = criterion.scale
        return {"scale_score": ScaleScore(score=s.min + credit * (s.max - s.min), value=credit)}
    return {"verdict": CriterionVerdict.MET if credit >= 0.5 else CriterionVerdict.UNMET}


def combine_turns(
    criterion: Criterion, turns: Sequence[AssistantTurn], reports: Sequence[CriterionReport]
) -> CriterionReport:
    """One report from each turn's report (see the module docstring)."""
    how = criterion.turns_aggregation
    credits = [_credit(r) for r in reports]
    known = [(c, r, t) for c, r, t in zip(credits, reports, turns, strict=True) if c is not None]
    failed = [(r, t) for r, t in zip(reports, turns, strict=True) if r.error is not None]
    usage = TokenUsage.total([r.token_usage for r in reports])
    costs = [r.completion_cost for r in reports]
    common: dict[str, Any] = {
        "criterion": criterion,
        "turns": [_turn(t, r) for t, r in zip(turns, reports, strict=True)],
        "token_usage": usage,
        "completion_cost": None if any(c is None for c in costs) else sum(c or 0.0 for c in costs),
    }
    settled: tuple[float, CriterionReport, AssistantTurn] | None = None
    if how == "mean" and known and not failed:
        mean = sum(c for c, _, _ in known) / len(known)
        return CriterionReport(
            **common,
            **_nearest(criterion, mean),
            turn_credit=mean,
            reason=f"mean over {len(known)} turns: {mean:.3g}",
        )
    if how == "all" and known:
        low = min(known, key=lambda x: x[0])
        settled = low if not failed or low[0] == 0.0 else None  # one UNMET turn settles it
    elif how == "any" and known:
        high = max(known, key=lambda x: x[0])
        settled = high if not failed or high[0] == 1.0 else None  # one MET turn settles it
    if settled is not None:
        _, r, t = settled
        reason = f"turn {t.number}: {r.reason}" if r.reason else f"turn {t.number}"
        return CriterionReport(
            **common,
            verdict=r.verdict,
            selection=r.selection,
            scale_score=r.scale_score,
            confidence=r.confidence,
            reason=reason,
        )
    if failed:
        r, t = failed[0]
        return CriterionReport(
            **common,
            verdict=r.verdict if r.verdict is not None else CriterionVerdict.CANNOT_ASSESS,
            selection=r.selection,
            scale_score=r.scale_score,
            error=f"turn {t.number}: {r.error}",
            error_category=r.error_category,
            reason=f"{len(failed)} of {len(reports)} turns could not be judged",
        )
    return CriterionReport(
        **common,
        verdict=CriterionVerdict.CANNOT_ASSESS,
        reason="no turn could be assessed",
    )
