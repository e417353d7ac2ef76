"""Conversations: chats and agent trajectories as one model, whatever API wrote them.

OpenAI chat messages (roles system/user/assistant/tool, ``tool_calls`` with JSON
arguments, ``tool`` results with ``tool_call_id``) and Anthropic messages
(``tool_use`` / ``tool_result`` blocks) are read into the same :class:`Conversation`
by ``_messages``; this module holds the model and the views graders and checks need.

A *turn* of the assistant is what it does between two user messages: its messages
and the tool results they lead to. An assistant that calls two tools and then
answers takes one turn of four messages.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["AssistantTurn", "Conversation", "Message", "Role", "ToolCall", "ToolUse"]

Role = Literal["system", "user", "assistant", "tool"]
_FROZEN = ConfigDict(extra="forbid", frozen=True)


class ToolCall(BaseModel):
    """One call of a tool by the assistant.

    ``arguments`` is the parsed JSON value (usually an object); when the model wrote
    arguments that are not valid JSON, ``arguments`` is None and ``arguments_text``
    keeps them verbatim (a broken call is part of the trajectory, not an input error).
    """

    model_config = _FROZEN

    name: str
    arguments: Any = None
    arguments_text: str | None = None
    id: str | None = None

    @property
    def arguments_json(self) -> str:
        """The arguments as compact JSON (or verbatim, when they were not JSON)."""
        if self.arguments_text is not None:
            return self.arguments_text
        return json.dumps(self.arguments, ensure_ascii=False, separators=(", ", ": "))


class Message(BaseModel):
    """One message: who spoke, the text, and the tool calls or the tool result it carries.

    ``tool_call_id`` and ``name`` are set on ``tool`` messages (the result of the call
    with that id, of that tool); ``is_error`` marks a result the tool reported as an
    error. ``reasoning`` holds an assistant's visible reasoning (Anthropic thinking
    blocks, ``reasoning_content``), kept apart from what it said. ``media`` numbers
    the images and documents the message held (their ``[image N]`` is in ``content``;
    the bytes are on the submission).
    """

    model_config = _FROZEN

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    reasoning: str | None = None
    media: tuple[int, ...] | None = None


@dataclass(frozen=True)
class ToolUse:
    """A tool call in context: its number, the message it is in and its result, if any."""

    number: int  # 1-based, in the order the calls were made
    message: int  # index of the assistant message that made it
    call: ToolCall
    result: int | None = None  # index of the tool message that answered it


@dataclass(frozen=True)
class AssistantTurn:
    """What the assistant did between two user messages: messages ``first`` to ``last``."""

    number: int  # 1-based
    first: int
    last: int


class Conversation(BaseModel):
    """A conversation or agent trajectory: messages in order.

    Build one from API messages with :func:`rubricjudge.conversations.read_messages`
    (OpenAI or Anthropic), or from :class:`Message` objects. ``to_openai()`` and
    ``to_anthropic()`` write it back in either API's form.
    """

    model_config = _FROZEN

    messages: tuple[Message, ...] = Field(min_length=1)

    def __len__(self) -> int:
        return len(self.messages)

    # -- views -------------------------------------------------------------------
    def tool_uses(self) -> list[ToolUse]:
        """Every tool call in order, numbered from 1, with the message that answered it."""
        uses: list[ToolUse] = []
        open_calls: dict[str, int] = {}  # call id -> position in uses
        for i, m in enumerate(self.messages):
            if m.role == "assistant":
                for call in m.tool_calls:
                    uses.append(ToolUse(len(uses) + 1, i, call))
                    if call.id is not None:
                        open_calls[call.id] = len(uses) - 1
            elif m.role == "tool":
                k = open_calls.pop(m.tool_call_id, None) if m.tool_call_id else None
                if k is None:  # a call without an id: the latest unanswered one of that tool
                    k = next(
                        (
                            j
                            for j in range(len(uses) - 1, -1, -1)
                            if uses[j].result is None and uses[j].call.name == m.name
                        ),
                        None,
                    )
                if k is not None:
                    u = uses[k]
                    uses[k] = ToolUse(u.number, u.message, u.call, i)
        return uses

    def assistant_turns(self) -> list[AssistantTurn]:
        """The assistant's turns in order (see the module docstring)."""
        turns: list[AssistantTurn] = []
        start: int | None = None
        last = -1
        for i, m in enumerate(self.messages):
            if m.role in ("assistant", "tool"):
                if start is None and m.role == "assistant":
                    start = i
                if start is not None:
                    last = i
            elif start is not None:
                turns.append(AssistantTurn(len(turns) + 1, start, last))
                start = None
        if start is not None:
            turns.append(AssistantTurn(len(turns) + 1, start, last))
        return turns

    @property
    def final_text(self) -> str:
        """What the assistant said last (its final answer), or "" when it said nothing."""
        for m in reversed(self.messages):
            if m.role == "assistant" and m.content.strip():
                return m.content
        return ""

    @property
    def ends_with_assistant(self) -> bool:
        """True when the last message is the assistant's (a reply, not a pending tool call)."""
        last = self.messages[-1]
        return last.role == "assistant" and not last.tool_calls

    # -- writing -------------------------------------------------------------------
    def to_openai(self) -> list[dict[str, Any]]:
        """The messages in OpenAI's chat format (tool results as ``tool`` messages)."""
        from ._messages import to_openai

        return to_openai(self)

    def to_anthropic(self) -> dict[str, Any]:
        """``{"system": ..., "messages": [...]}`` in Anthropic's format (blocks for tools)."""
        from ._messages import to_anthropic

        return to_anthropic(self)
