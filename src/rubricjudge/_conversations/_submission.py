"""What is graded: a text (with optional reasoning apart), content parts or a conversation.

A submission is text, ``{"thinking": ..., "output": ...}``, a list of content parts
(text, images and documents; see ``_media_source``), a conversation (a list of OpenAI or
Anthropic messages, ``{"messages": [...], "system": ...}`` or a
:class:`Conversation`), or a :class:`Submission`. A string that starts with a
``<thinking>...</thinking>`` section is split the same way (autorubric's
convention); markers anywhere else are left as text.

For a conversation, ``output`` is the assistant's final answer (what metrics such
as BLEU and length penalties measure) and judges see the whole conversation,
rendered by ``_render_prompt``; :func:`render_for_prompt` renders any submission for a
judge prompt (text as is, a conversation within its budget).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ConfigError
from ._conversation import Conversation
from ._media_part import MediaPart, MediaProblem
from ._media_source import MediaCollector, is_media_part
from ._messages import read_messages_with_media
from ._render_prompt import OverBudget, RenderedSubmission, render_conversation, tokens

__all__ = [
    "Submission",
    "is_part_list",
    "read_parts",
    "render_for_prompt",
    "to_reference",
    "to_submission",
]

_LEADING_THINKING = re.compile(
    r"^\s*<thinking>(.*?)</thinking>\s*(?:<output>(.*?)</output>\s*)?(.*)$",
    re.DOTALL | re.IGNORECASE,
)
_CONVERSATION_KEYS = {"messages", "system"}


@dataclass(frozen=True)
class Submission:
    """A submission: the final ``output``, the optional ``thinking``, or a ``conversation``.

    With a conversation, ``output`` is its final assistant text and ``thinking`` is
    empty (an assistant's reasoning stays on its messages). ``media`` holds the images
    and documents of the submission (or of its conversation's messages), numbered as
    the text's ``[image N]`` placeholders.
    """

    output: str
    thinking: str = ""
    conversation: Conversation | None = None
    media: tuple[MediaPart, ...] = ()

    @property
    def text(self) -> str:
        """Thinking and output as one text (what an unsplit submission would be).

        A conversation's text is the whole conversation as judges read it.
        """
        if self.conversation is not None:
            return render_conversation(self.conversation).text
        return f"{self.thinking}\n{self.output}" if self.thinking else self.output

    @property
    def is_conversation(self) -> bool:
        """True when the submission is a conversation."""
        return self.conversation is not None

    @classmethod
    def of_conversation(
        cls, conversation: Conversation, media: tuple[MediaPart, ...] = ()
    ) -> Submission:
        """The submission that is ``conversation`` (with the media its messages held)."""
        return cls(output=conversation.final_text, conversation=conversation, media=media)

    def to_data(self) -> Any:
        """The submission as a dataset file holds it (parts inline): reads back the same."""
        if self.conversation is not None:
            messages = self.conversation.to_openai()
            for item, m in zip(messages, self.conversation.messages, strict=True):
                if m.media:
                    shown = [self.media[k - 1] for k in m.media]
                    item["content"] = _as_parts(item.get("content") or "", shown)
            return messages
        if not self.media:
            return self.output
        return _as_parts(self.output, self.media)


def _as_parts(text: str, media: Sequence[MediaPart]) -> list[Any]:
    """``text`` with its ``[image N]`` placeholders turned back into the parts they stand for."""
    out: list[Any] = []
    missing: list[MediaPart] = []
    rest = text
    for part in media:
        before, found, after = rest.partition(part.placeholder)
        if not found:  # the text lost its placeholder: the part goes last
            missing.append(part)
            continue
        if before.strip("\n"):
            out.append({"type": "text", "text": before.strip("\n")})
        out.append(part.to_part())
        rest = after
    if rest.strip("\n"):
        out.append({"type": "text", "text": rest.strip("\n")})
    out.extend(p.to_part() for p in missing)
    return out


def read_parts(parts: Sequence[Any], *, where: str = "submission", owner: str = "") -> Submission:
    """A submission of content parts: text parts joined, images and documents as ``[image N]``.

    ``owner="reference"`` reads a reference submission: ``[reference image 1]``.

    Raises:
        ConfigError: a part of the wrong shape, or one that cannot be read (named by path).
    """
    collector = MediaCollector(owner=owner)
    text: list[str] = []
    for k, part in enumerate(parts):
        here = f"{where}[{k}]"
        if isinstance(part, str):
            text.append(part)
        elif isinstance(part, Mapping) and part.get("type") == "text":
            value = part.get("text")
            if not isinstance(value, str):
                raise ConfigError(f"{here}.text: expected text, got {type(value).__name__}")
            text.append(value)
        elif is_media_part(part):
            try:
                text.append(collector.add(part).placeholder)
            except MediaProblem as e:
                raise ConfigError(f"{here}: {e}") from None
        else:
            kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
            raise ConfigError(
                f"{here}: {kind!r} is not a content part; use {{'type': 'text', 'text': ...}}, "
                "{'type': 'image', 'path' | 'url' | 'data': ...} or {'type': 'document', ...}"
            )
    return Submission(output="\n".join(text), media=tuple(collector.parts))


def is_part_list(value: Any) -> bool:
    """True for a non-empty list of content parts (objects with a ``type``, no ``role``)."""
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str | bytes)
        and len(value) > 0
        and all(isinstance(p, Mapping) and "type" in p and "role" not in p for p in value)
    )


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
        return Submission.of_conversation(*read_messages_with_media(to_grade, where=where))
    if is_part_list(to_grade):
        return read_parts(to_grade, where=where)
    if isinstance(to_grade, Mapping) and "messages" in to_grade:
        extra = sorted(set(map(str, to_grade)) - _CONVERSATION_KEYS)
        if extra:
            raise ConfigError(
                f"{where} has unknown key {extra[0]!r}; a conversation takes 'messages' and "
                "an optional 'system'"
            )
        conv, media = read_messages_with_media(
            to_grade["messages"], system=to_grade.get("system"), where=f"{where}.messages"
        )
        return Submission.of_conversation(conv, media)
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
        '{"thinking": ..., "output": ...}, a list of content parts (text, images, documents) '
        "or a conversation (a list of chat messages)"
    )


def to_reference(reference: Any, *, where: str = "reference_submission") -> Submission | None:
    """A reference submission: text as it is, or content parts (``[reference image 1]``).

    Raises:
        ConfigError: neither text nor a list of content parts, or a part cannot be read.
    """
    if reference is None:
        return None
    if isinstance(reference, str):
        return Submission(output=reference)
    if isinstance(reference, Submission):
        return reference
    if is_part_list(reference):
        return read_parts(reference, where=where, owner="reference")
    raise ConfigError(
        f"{where} is {type(reference).__name__}; give text or a list of content parts"
    )


def render_for_prompt(
    submission: Any,
    *,
    budget: int | None = None,
    over_budget: OverBudget = "error",
    keep: Collection[int] = (),
) -> RenderedSubmission:
    """Render a submission (text, thinking/output, conversation) as a judge prompt shows it.

    The text goes inside the prompt's ``<submission-CODE>`` block; a text
    submission's ``thinking`` is not part of it (prompts show it in a block of its
    own). A conversation follows the budget and policy (see ``_render_prompt``);
    text is never cut.

    Raises:
        JudgeError: category ``over_budget`` (see :func:`render_conversation`).
        ConfigError / ConversationError: ``submission`` is not a submission.
    """
    sub = submission if isinstance(submission, Submission) else to_submission(submission)
    if sub.conversation is None:
        return RenderedSubmission(sub.output, tokens=tokens(len(sub.output)))
    return render_conversation(sub.conversation, budget=budget, over_budget=over_budget, keep=keep)
