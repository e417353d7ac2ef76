"""Reading OpenAI and Anthropic messages into a :class:`Conversation`.

Writing them back is :meth:`Conversation.to_openai` / :meth:`Conversation.to_anthropic`.

Both forms may be mixed in one list (each message is read by its own shape):

* OpenAI: ``content`` is text or a list of parts (``text``; ``image_url`` and
  ``file`` parts are read as images and documents, see ``_media_source``; audio becomes a
  short placeholder); an assistant's ``tool_calls`` hold
  ``function.arguments`` as JSON text; a ``tool`` message answers ``tool_call_id``.
  ``developer`` reads as ``system``; the legacy ``function_call`` and ``function``
  role are read too.
* Anthropic: ``content`` is text or a list of blocks; ``tool_use`` blocks (``id``,
  ``name``, ``input``) are an assistant's calls, ``image`` and ``document`` blocks
  are read as images and documents, ``tool_result`` blocks
  (``tool_use_id``, ``content``, ``is_error``) in a user message become tool
  messages; ``thinking`` blocks are the assistant's reasoning. A top-level
  ``system`` (text or text blocks) is given as ``system=``.

Arguments that are not valid JSON are kept as text (the model wrote them; a rubric
may judge that). Other keys of a message are ignored. Anything of the wrong shape is
a :class:`ConversationError` naming its path (``messages[2].tool_calls[0].function``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .._errors import ConversationError
from .._limits import without_surrogates
from ._conversation import Conversation, Message, Role, ToolCall
from ._media_part import MediaPart, MediaProblem
from ._media_source import MediaCollector, is_media_part

__all__ = ["read_messages", "read_messages_with_media"]

_ROLES: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
}
_PLACEHOLDERS = {
    "image_url": "[image]",
    "image": "[image]",
    "input_audio": "[audio]",
    "audio": "[audio]",
    "file": "[file]",
    "document": "[document]",
}


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _fail(where: str, message: str) -> ConversationError:
    return ConversationError(f"{where}: {message}")


def _text(value: Any, where: str) -> str:
    if value is None or isinstance(value, str):
        return value or ""
    raise _fail(where, f"expected text, got {_kind(value)}")


def _arguments(value: Any, where: str) -> tuple[Any, str | None]:
    """(parsed arguments, verbatim text when they are not JSON)."""
    if value is None:
        return {}, None
    if isinstance(value, str):
        if not value.strip():
            return {}, None
        try:
            # a JSON string inside the JSON line: its escapes are decoded only here, so a
            # lone surrogate in them is replaced here too (see _limits)
            return without_surrogates(json.loads(value))[0], None
        except ValueError:
            return None, value
    if isinstance(value, Mapping | list):
        return value, None
    raise _fail(where, f"expected JSON text or an object, got {_kind(value)}")


class _Reader:
    """Reads messages one by one, keeping the tool calls seen so results can name them."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.out: list[Message] = []
        self.calls: dict[str, str] = {}  # call id -> tool name
        self.pending: list[str] = []  # names of calls without an id, for legacy results
        self.media = MediaCollector()
        self.numbers: list[int] = []  # the media parts of the message being read

    def call(self, name: Any, args: Any, ident: Any, where: str, args_key: str) -> ToolCall:
        if not isinstance(name, str) or not name:
            raise _fail(f"{where}.name", f"a tool call needs the tool's name, got {_kind(name)}")
        if ident is not None and not isinstance(ident, str):
            raise _fail(f"{where}.id", f"expected text, got {_kind(ident)}")
        parsed, verbatim = _arguments(args, f"{where}.{args_key}")
        if ident:
            self.calls[ident] = name
        else:
            self.pending.append(name)
        return ToolCall(name=name, arguments=parsed, arguments_text=verbatim, id=ident or None)

    def result(self, call_id: Any, name: Any, content: str, is_error: bool, where: str) -> None:
        if call_id is not None and not isinstance(call_id, str):
            raise _fail(where, f"expected the id of a tool call, got {_kind(call_id)}")
        if call_id:
            if call_id not in self.calls:
                raise _fail(
                    where,
                    f"{call_id!r} answers no tool call before it; give the id of an earlier "
                    "call (tool_calls[].id, or a tool_use block's id)",
                )
            tool = self.calls[call_id]
        elif isinstance(name, str) and name in self.pending:
            self.pending.remove(name)
            tool = name
        else:
            raise _fail(where, "a tool result needs the id of the call it answers (tool_call_id)")
        self.out.append(
            Message(
                role="tool",
                content=content,
                tool_call_id=call_id or None,
                name=tool,
                is_error=is_error,
            )
        )

    # -- one message -----------------------------------------------------------------
    def message(self, raw: Any, where: str) -> None:
        if not isinstance(raw, Mapping):
            raise _fail(
                where, f"a message is an object with 'role' and 'content', got {_kind(raw)}"
            )
        role_name = raw.get("role")
        role = _ROLES.get(role_name) if isinstance(role_name, str) else None
        if role is None:
            valid = ", ".join(sorted(set(_ROLES)))
            raise _fail(f"{where}.role", f"{role_name!r} is not a role; use one of {valid}")
        content = raw.get("content")
        self.numbers = []
        if role == "tool":
            ident = raw.get("tool_call_id")
            self.result(
                ident,
                raw.get("name"),
                self.blocks_text(content, f"{where}.content"),
                False,
                f"{where}.tool_call_id",
            )
            return
        text, calls, results, reasoning = self.blocks(content, role, f"{where}.content")
        for key, legacy in (("tool_calls", False), ("function_call", True)):
            if raw.get(key) is None:
                continue
            if role != "assistant":
                raise _fail(f"{where}.{key}", "only an assistant message calls tools")
            items = [raw[key]] if legacy else raw[key]
            if not isinstance(items, list):
                raise _fail(f"{where}.{key}", f"expected a list, got {_kind(items)}")
            for k, item in enumerate(items):
                here = f"{where}.{key}" if legacy else f"{where}.{key}[{k}]"
                calls.append(self.openai_call(item, here, legacy))
        for key in ("reasoning_content", "reasoning"):
            if isinstance(raw.get(key), str) and raw[key].strip():
                reasoning.append(raw[key])
        if isinstance(raw.get("refusal"), str) and raw["refusal"].strip():
            text.append(f"[refusal] {raw['refusal']}")
        for ident, body, is_error, here in results:
            self.result(ident, None, body, is_error, here)
        if text or calls or not results:
            self.out.append(
                Message(
                    role=role,
                    content="\n".join(text),
                    tool_calls=tuple(calls),
                    reasoning="\n".join(reasoning) or None,
                    media=tuple(self.numbers) or None,
                )
            )

    def openai_call(self, item: Any, where: str, legacy: bool) -> ToolCall:
        if not isinstance(item, Mapping):
            raise _fail(where, f"a tool call is an object, got {_kind(item)}")
        if legacy:
            return self.call(item.get("name"), item.get("arguments"), None, where, "arguments")
        fn = item.get("function")
        if not isinstance(fn, Mapping):
            raise _fail(f"{where}.function", f"expected {{name, arguments}}, got {_kind(fn)}")
        return self.call(
            fn.get("name"), fn.get("arguments"), item.get("id"), f"{where}.function", "arguments"
        )

    def blocks_text(self, content: Any, where: str) -> str:
        """The text of a tool result's content (text, or text parts / blocks)."""
        text, calls, results, _ = self.blocks(content, "tool", where)
        return "\n".join(text)

    def blocks(
        self, content: Any, role: Role, where: str
    ) -> tuple[list[str], list[ToolCall], list[tuple[Any, str, bool, str]], list[str]]:
        """(text parts, tool calls, tool results, reasoning) of a message's content."""
        text: list[str] = []
        calls: list[ToolCall] = []
        results: list[tuple[Any, str, bool, str]] = []
        reasoning: list[str] = []
        if content is None or isinstance(content, str):
            return ([content] if content else []), calls, results, reasoning
        if not isinstance(content, Sequence) or isinstance(content, bytes):
            raise _fail(where, f"expected text or a list of parts, got {_kind(content)}")
        for k, part in enumerate(content):
            here = f"{where}[{k}]"
            if isinstance(part, str):
                text.append(part)
                continue
            if not isinstance(part, Mapping):
                raise _fail(here, f"a content part is an object with 'type', got {_kind(part)}")
            kind = part.get("type")
            if kind == "text":
                text.append(_text(part.get("text"), f"{here}.text"))
            elif is_media_part(part):
                try:
                    got = self.media.add(part)
                except MediaProblem as e:
                    raise _fail(here, str(e)) from None
                self.numbers.append(got.number)
                text.append(got.placeholder)
            elif kind in _PLACEHOLDERS:
                text.append(_PLACEHOLDERS[kind])
            elif kind == "refusal":
                text.append(f"[refusal] {_text(part.get('refusal'), f'{here}.refusal')}")
            elif kind in ("thinking", "redacted_thinking") and role == "assistant":
                reasoning.append(_text(part.get("thinking"), here) or "[redacted reasoning]")
            elif kind == "tool_use" and role == "assistant":
                calls.append(
                    self.call(part.get("name"), part.get("input"), part.get("id"), here, "input")
                )
            elif kind == "tool_result" and role == "user":
                body = self.blocks_text(part.get("content"), f"{here}.content")
                results.append(
                    (
                        part.get("tool_use_id"),
                        body,
                        bool(part.get("is_error")),
                        f"{here}.tool_use_id",
                    )
                )
            else:
                raise _fail(
                    f"{here}.type",
                    f"{kind!r} is not a content part a {role} message can hold here; use text"
                    + (", tool_use or thinking" if role == "assistant" else "")
                    + (" or tool_result" if role == "user" else "")
                    + " (images and files are shown as placeholders)",
                )
        return text, calls, results, reasoning


def read_messages(messages: Any, *, system: Any = None, where: str = "messages") -> Conversation:
    """Read OpenAI or Anthropic messages (either, or mixed) into a :class:`Conversation`.

    Images and documents are read and checked, and shown in the text as ``[image N]``;
    :func:`read_messages_with_media` returns their bytes too.

    Args:
        messages: a list of message objects.
        system: Anthropic's top-level system prompt (text or text blocks), if any.
        where: how errors name the list (``"messages"``, ``"completions[3]"``).

    Raises:
        ConversationError: a message of the wrong shape; the error names its path.
    """
    return read_messages_with_media(messages, system=system, where=where)[0]


def read_messages_with_media(
    messages: Any, *, system: Any = None, where: str = "messages"
) -> tuple[Conversation, tuple[MediaPart, ...]]:
    """Read messages as :func:`read_messages` does; with the images and documents they hold.

    Raises:
        ConversationError: a message of the wrong shape, or a part that cannot be read.
    """
    if isinstance(messages, Conversation):
        return messages, ()
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise _fail(where, f"expected a list of messages, got {_kind(messages)}")
    reader = _Reader(where)
    if system is not None:
        text, _, _, _ = reader.blocks(system, "system", "system")
        if any(t.strip() for t in text):
            reader.out.append(Message(role="system", content="\n".join(text)))
    for i, raw in enumerate(messages):
        reader.message(raw, f"{where}[{i}]")
    if not reader.out:
        raise _fail(where, "no messages; a conversation needs at least one")
    return Conversation(messages=tuple(reader.out)), tuple(reader.media.parts)
