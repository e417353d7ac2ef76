"""Exact checks on a conversation's tool calls, and the scopes a judged criterion may have.

A criterion whose ``scoring_method`` is ``{type: trajectory, trajectory: {...}}`` is
decided by one :class:`TrajectoryCheck`, with no judge call: MET when the check
holds, UNMET when it does not (on a penalty, MET means the fault is there, as
everywhere). The checks (``_methods._trajectory`` runs them):

* ``tool_called`` / ``tool_not_called``: ``tool`` was called at least once / never;
* ``called_before``: an order: when ``before`` is called, ``tool`` was called before
  its first call (holds when ``before`` is never called; pair it with ``tool_called``
  to require the call);
* ``max_calls``: ``tool`` (or, without ``tool``, all tools together) was called at
  most ``max`` times;
* ``called_with``: some call of ``tool`` has ``arguments`` as a JSON subset of its
  arguments (objects: each key given, matched recursively; lists: each element given
  matches some element; numbers by value) and/or arguments whose compact JSON text
  matches the regular expression ``pattern`` (searched, at most 0.5 s);
* ``ends_with_assistant``: the last message is the assistant's, and it calls no tool.

A judged criterion may set ``scope`` (:data:`SCOPES`): the whole conversation (the
default), the final assistant turn, every assistant turn (each judged on its own and
combined by ``turn_aggregation``: ``all``, ``any`` or ``mean``), or the tool calls.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "SCOPES",
    "TRAJECTORY_CHECKS",
    "Scope",
    "TrajectoryCheck",
    "TrajectoryCheckName",
    "TurnAggregation",
    "check_problem",
]

Scope = Literal["conversation", "final_assistant_turn", "every_assistant_turn", "tool_calls"]
SCOPES: tuple[Scope, ...] = (
    "conversation",
    "final_assistant_turn",
    "every_assistant_turn",
    "tool_calls",
)
TurnAggregation = Literal["all", "any", "mean"]
TrajectoryCheckName = Literal[
    "tool_called",
    "tool_not_called",
    "called_before",
    "max_calls",
    "called_with",
    "ends_with_assistant",
]
TRAJECTORY_CHECKS: tuple[TrajectoryCheckName, ...] = (
    "tool_called",
    "tool_not_called",
    "called_before",
    "max_calls",
    "called_with",
    "ends_with_assistant",
)
# which fields each check needs (all of), may take, and the rest it refuses
_NEEDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "tool_called": (("tool",), ()),
    "tool_not_called": (("tool",), ()),
    "called_before": (("tool", "before"), ()),
    "max_calls": (("max",), ("tool",)),
    "called_with": (("tool",), ("arguments", "pattern")),
    "ends_with_assistant": ((), ()),
}
_FIELDS = ("tool", "before", "max", "arguments", "pattern")


class TrajectoryCheck(BaseModel):
    """One exact check on a conversation's tool calls (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check: TrajectoryCheckName = Field(description="Which check: " + ", ".join(TRAJECTORY_CHECKS))
    tool: str | None = Field(default=None, min_length=1, description="The tool's name.")
    before: str | None = Field(
        default=None, min_length=1, description="called_before: the tool that must come later."
    )
    max: int | None = Field(default=None, ge=0, description="max_calls: the most calls allowed.")
    arguments: Any = Field(
        default=None,
        description="called_with: a JSON subset the call's arguments must contain.",
    )
    pattern: str | None = Field(
        default=None,
        min_length=1,
        description="called_with: a regular expression searched in the arguments' JSON text.",
    )

    def describe(self) -> str:
        """The check in words (for notes in reports)."""
        if self.check == "tool_called":
            return f"{self.tool} is called"
        if self.check == "tool_not_called":
            return f"{self.tool} is never called"
        if self.check == "called_before":
            return f"{self.tool} is called before {self.before}"
        if self.check == "max_calls":
            return f"{self.tool or 'tools'} called at most {self.max} times"
        if self.check == "called_with":
            what = []
            if self.arguments is not None:
                what.append("arguments containing the given subset")
            if self.pattern is not None:
                what.append(f"arguments matching {self.pattern!r}")
            return f"{self.tool} is called with " + " and ".join(what)
        return "the conversation ends with an assistant message"


def check_problem(check: TrajectoryCheck) -> str | None:
    """What is wrong with ``check``'s fields for its kind of check, or None.

    Checked by the criterion that holds it, so the message can name the criterion.
    """
    needs, may = _NEEDS[check.check]
    for name in needs:
        if getattr(check, name) is None:
            return f"the check {check.check!r} needs {name!r}; add it"
    for name in _FIELDS:
        if name not in needs and name not in may and getattr(check, name) is not None:
            return f"the check {check.check!r} takes no {name!r}; remove it"
    if check.check == "called_with" and check.arguments is None and check.pattern is None:
        return "the check 'called_with' needs 'arguments' or 'pattern' (or both)"
    if check.pattern is not None:
        import regex

        try:
            regex.compile(check.pattern)
        except regex.error as e:
            return f"pattern {check.pattern!r} is not a regular expression: {e}"
    return None
