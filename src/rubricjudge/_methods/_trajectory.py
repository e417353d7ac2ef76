"""The ``trajectory`` method: exact checks on a conversation's tool calls, no judge call.

The checks are described in ``_model._trajectory_check``. The report's ``evidence`` names
the calls that decided (``call 3: book_reservation at #29``) and ``notes`` the check
in words. A submission that is not a conversation cannot be checked: that is a
recorded error (category ``input``), priced by the CANNOT_ASSESS strategy like any
failure, never a verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._conversations._conversation import Conversation, ToolUse
from .._conversations._submission import Submission, to_submission
from .._errors import RubricJudgeError
from .._model._reports import CriterionReport
from .._model._rubric import Criterion, CriterionVerdict, ScoringType
from .._model._trajectory_check import TrajectoryCheck
from ._levels import error_report, level_report

__all__ = ["json_subset", "run_trajectory", "trajectory_holds"]

PATTERN_TIMEOUT_S = 0.5
_METHOD = ScoringType.TRAJECTORY


def _same_scalar(want: Any, got: Any) -> bool:
    if isinstance(want, bool) or isinstance(got, bool):
        return type(want) is type(got) and want == got
    return bool(want == got)  # 1 == 1.0, as JSON numbers


def json_subset(want: Any, got: Any) -> bool:
    """True when ``want`` is a JSON subset of ``got``.

    Objects: every key of ``want`` is in ``got`` with a matching value. Lists: every
    element of ``want`` matches some element of ``got``. Scalars: equal (numbers by
    value; ``true`` is not ``1``).
    """
    if isinstance(want, Mapping):
        return isinstance(got, Mapping) and all(
            k in got and json_subset(v, got[k]) for k, v in want.items()
        )
    if isinstance(want, Sequence) and not isinstance(want, str):
        if not isinstance(got, Sequence) or isinstance(got, str):
            return False
        return all(any(json_subset(w, g) for g in got) for w in want)
    return _same_scalar(want, got)


def _where(use: ToolUse) -> str:
    return f"call {use.number}: {use.call.name} at #{use.message + 1}"


def _matches(check: TrajectoryCheck, use: ToolUse) -> bool:
    if check.arguments is not None:
        if use.call.arguments_text is not None:  # arguments that are not JSON hold no subset
            return False
        if not json_subset(check.arguments, use.call.arguments):
            return False
    if check.pattern is not None:
        import regex

        # a rubric's pattern is data: a catastrophic one is stopped, not run for ever
        if regex.search(check.pattern, use.call.arguments_json, timeout=PATTERN_TIMEOUT_S) is None:
            return False
    return True


def trajectory_holds(check: TrajectoryCheck, conversation: Conversation) -> tuple[bool, list[str]]:
    """Whether ``check`` holds on ``conversation``, and the calls that show it.

    Raises:
        TimeoutError: a ``pattern`` took longer than 0.5 s on one call's arguments.
    """
    uses = conversation.tool_uses()
    of_tool = [u for u in uses if u.call.name == check.tool] if check.tool else uses
    kind = check.check
    if kind == "tool_called":
        return bool(of_tool), [_where(u) for u in of_tool[:5]]
    if kind == "tool_not_called":
        return not of_tool, [_where(u) for u in of_tool[:5]]
    if kind == "called_before":  # an order: nothing to check when `before` is never called
        later = [u for u in uses if u.call.name == check.before]
        if not later:
            return True, [f"{check.before} is never called"]
        if not of_tool:
            return False, [f"{check.tool} is never called", _where(later[0])]
        return of_tool[0].number < later[0].number, [_where(of_tool[0]), _where(later[0])]
    if kind == "max_calls":
        assert check.max is not None
        return len(of_tool) <= check.max, [f"{len(of_tool)} calls"]
    if kind == "called_with":
        hits = [u for u in of_tool if _matches(check, u)]
        if hits:
            return True, [_where(u) for u in hits[:5]]
        return False, [f"{len(of_tool)} calls of {check.tool}, none matching"]
    last = conversation.messages[-1]
    return conversation.ends_with_assistant, [
        f"the last message (#{len(conversation)}) is {last.role}"
    ]


def _conversation(target: Any) -> Conversation | None:
    if isinstance(target, Conversation):
        return target
    if isinstance(target, Submission):
        return target.conversation
    try:
        return to_submission(target, where="target").conversation
    except RubricJudgeError:
        return None


def run_trajectory(criterion: Criterion, target: Any) -> CriterionReport:
    """Decide a ``trajectory`` criterion on ``target`` (a conversation or a submission)."""
    sm = criterion.scoring_method
    assert sm is not None and sm.trajectory is not None
    check = sm.trajectory
    conv = _conversation(target)
    if conv is None:
        return error_report(
            criterion,
            _METHOD,
            "the submission is not a conversation, so its tool calls cannot be checked; "
            "give 'messages'",
            category="input",
            completion_cost=0.0,
        )
    try:
        holds, evidence = trajectory_holds(check, conv)
    except TimeoutError:
        return error_report(
            criterion,
            _METHOD,
            f"pattern {check.pattern!r} took over {PATTERN_TIMEOUT_S} s; simplify it",
            category="function",
            completion_cost=0.0,
        )
    verdict = CriterionVerdict.MET if holds else CriterionVerdict.UNMET
    notes = f"{check.describe()}: {'yes' if holds else 'no'}"
    # no judge was asked: free, so the item's cost stays known
    return level_report(
        criterion, verdict, _METHOD, evidence=evidence, notes=notes, completion_cost=0.0
    )
