"""What is graded: a text (with optional reasoning apart) or a conversation.

A submission is text, ``{"thinking": ..., "output": ...}``, a conversation (a list
of OpenAI or Anthropic messages, ``{"messages": [...], "system": ...}`` or a
:class:`Conversation`), or a :class:`Submission`. A string that starts with a
``<thinking>...</thinking>`` section is split the same way (autorubric's
convention); markers anywhere else are left as text.

For a conversation, ``output`` is the assistant's final answer (what metrics such
as BLEU and length penalties measure) and judges see the whole conversation,
rendered by ``_render_prompt``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ConfigError
from ._conversation import Conversation
from ._messages import read_messages

__all__ = ["Submission", "to_submission"]

_LEADING_THINKING = re.compile(
    r"^\s*<thinking>(.*?)</thinking>\s*(?:<output>(.*?)</output>\s*)?(.*)$",
    re.DOTALL | re.IGNORECASE,
)
_CONVERSATION_KEYS = {"messages", "system"}


@dataclass(frozen=True)
class Submission:
    """A submission: the final ``output``, the optional ``thinking``, or a ``conversation``.

    With a conversation, ``output`` is its final assistant text and ``thinking`` is
    empty (an assistant's reasoning stays on its messages).
    """

    output: str
    thinking: str = ""
    conversation: Conversation | None = None

    @property
    def text(self) -> str:
        """Thinking and output as one text (what an unsplit submission would be).

        A conversation's text is the whole conversation as judges read it.
        """
        if self.conversation is not None:
            from ._render_prompt import render_conversation

            return render_conversation(self.conversation).text
        return f"{self.thinking}\n{self.output}" if self.thinking else self.output

    @property
    def is_conversation(self) -> bool:
        """True when the submission is a conversation."""
        return self.conversation is not None

    @classmethod
    def of_conversation(cls, conversation: Conversation) -> Submission:
        """The submission that is ``conversation``."""
        return cls(output=conversation.final_text, conversation=conversation)


def _is_message_list(value: Any) -> bool:
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str | bytes)
        and len(value) > 0
        and all(isinstance(m, Mapping) and "role" in m for m in value)
    )


def to_submission(to_grade: Any, *, where: str = "to_grade") -> Submission:
    """Normalise text, a thinking/output mapping, a conversation or a :class:`Submission`.

    Raises:
        ConfigError: the value is none of those, or a mapping has other keys or
            non-text values.
        ConversationError: a conversation's messages are malformed (the path is named).
    """
    if isinstance(to_grade, Submission):
        return to_grade
    if isinstance(to_grade, str):
        m = _LEADING_THINKING.match(to_grade)
        if m is None:
            return Submission(output=to_grade)
        rest = (m.group(2) or "") + (m.group(3) or "")
        return Submission(output=rest.strip(), thinking=m.group(1).strip())
    if isinstance(to_grade, Conversation):
        return Submission.of_conversation(to_grade)
    if _is_message_list(to_grade):
        return Submission.of_conversation(read_messages(to_grade, where=where))
    if isinstance(to_grade, Mapping) and "messages" in to_grade:
        extra = sorted(set(map(str, to_grade)) - _CONVERSATION_KEYS)
        if extra:
            raise ConfigError(
                f"{where} has unknown key {extra[0]!r}; a conversation takes 'messages' and "
                "an optional 'system'"
            )
        conv = read_messages(
            to_grade["messages"], system=to_grade.get("system"), where=f"{where}.messages"
        )
        return Submission.of_conversation(conv)
    if isinstance(to_grade, Mapping):
        extra = sorted(set(map(str, to_grade)) - {"thinking", "output"})
        if extra:
            raise ConfigError(
                f"{where} has unknown key {extra[0]!r}; a submission mapping takes only "
                "'thinking' and 'output' (or 'messages' for a conversation)"
            )
        parts = {}
        for key in ("thinking", "output"):
            value = to_grade.get(key)
            if value is not None and not isinstance(value, str):
                raise ConfigError(f"{where}[{key!r}] is {type(value).__name__}, not text")
            parts[key] = value or ""
        return Submission(output=parts["output"], thinking=parts["thinking"])
    raise ConfigError(
        f"{where} is {type(to_grade).__name__}; give a string, "
        '{"thinking": ..., "output": ...} or a conversation (a list of chat messages)'
    )
