"""Conversations: chats and agent trajectories as one model, whatever API wrote them.

OpenAI chat messages (roles system/user/assistant/tool, ``tool_calls`` with JSON
arguments, ``tool`` results with ``tool_call_id``) and Anthropic messages
(``tool_use`` / ``tool_result`` blocks) are read into the same :class:`Conversation`
by ``_messages``; this module holds the model, the views graders and checks need, and
writes a conversation back in either API's form (:meth:`Conversation.to_openai`,
:meth:`Conversation.to_anthropic`).

A *turn* of the assistant is what it does between two user messages: its messages
and the tool results they lead to. An assistant that calls two tools and then
answers takes one turn of four messages.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AssistantTurn",
    "Conversation",
    "Message",
    "Role",
    "ToolCall",
    "ToolUse",
    "to_anthropic",
    "to_openai",
]

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
        return to_openai(self)

    def to_anthropic(self) -> dict[str, Any]:
        """``{"system": ..., "messages": [...]}`` in Anthropic's format (blocks for tools)."""
        return to_anthropic(self)


# -- writing ---------------------------------------------------------------------------
def _call_ids(conversation: Conversation, prefix: str) -> tuple[dict[int, str], dict[int, str]]:
    """Ids to write: per (message, call) position, and per tool message the id it answers.

    Calls read without an id (the legacy ``function_call``) get ``<prefix><number>``.
    """
    by_call: dict[int, str] = {}
    by_result: dict[int, str] = {}
    for use in conversation.tool_uses():
        ident = use.call.id or f"{prefix}{use.number}"
        by_call[use.number] = ident
        if use.result is not None:
            by_result[use.result] = ident
    return by_call, by_result


def to_openai(conversation: Conversation) -> list[dict[str, Any]]:
    """The conversation as OpenAI chat messages; read back, it is the same conversation."""
    by_call, by_result = _call_ids(conversation, "call_")
    out: list[dict[str, Any]] = []
    n = 0
    for i, m in enumerate(conversation.messages):
        if m.role == "tool":
            item: dict[str, Any] = {
                "role": "tool",
                "tool_call_id": m.tool_call_id or by_result.get(i, ""),
                "content": m.content,
            }
            if m.name:
                item["name"] = m.name
            out.append(item)
            continue
        item = {"role": m.role, "content": m.content}
        if m.reasoning:
            item["reasoning_content"] = m.reasoning
        if m.tool_calls:
            calls = []
            for c in m.tool_calls:
                n += 1
                fn = {"name": c.name, "arguments": c.arguments_json}
                calls.append({"id": by_call[n], "type": "function", "function": fn})
            item["tool_calls"] = calls
        out.append(item)
    return out


def to_anthropic(conversation: Conversation) -> dict[str, Any]:
    """``{"system": ..., "messages": [...]}`` in Anthropic's form (tool results in user turns)."""
    by_call, by_result = _call_ids(conversation, "toolu_")
    system = [m.content for m in conversation.messages if m.role == "system"]
    out: list[dict[str, Any]] = []
    n = 0
    for i, m in enumerate(conversation.messages):
        if m.role == "system":
            continue
        if m.role == "tool":
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": m.tool_call_id or by_result.get(i, ""),
                "content": m.content,
            }
            if m.is_error:
                block["is_error"] = True
            last = out[-1] if out else None
            if last is not None and last["role"] == "user" and last.get("results"):
                last["content"].append(block)
            else:
                out.append({"role": "user", "content": [block], "results": True})
            continue
        blocks: list[dict[str, Any]] = []
        if m.reasoning:
            blocks.append({"type": "thinking", "thinking": m.reasoning})
        if m.content:
            blocks.append({"type": "text", "text": m.content})
        for c in m.tool_calls:
            n += 1
            args = c.arguments if c.arguments_text is None else c.arguments_text
            blocks.append({"type": "tool_use", "id": by_call[n], "name": c.name, "input": args})
        if m.role == "user" and out and out[-1].get("results"):
            out[-1]["content"].extend(blocks)  # Anthropic's results and text share a user turn
            continue
        out.append({"role": m.role, "content": blocks})
    for item in out:
        item.pop("results", None)
    data: dict[str, Any] = {"messages": out}
    if system:
        data["system"] = "\n\n".join(system)
    return data
