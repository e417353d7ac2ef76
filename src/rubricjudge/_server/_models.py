"""The scoring server's request bodies (checked strictly: unknown keys are errors)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .._conversations._media_source import media_source
from .._conversations._messages import read_messages_with_media
from .._conversations._submission import Submission

__all__ = ["BatchItem", "BatchRequest", "ScoreRequest", "SubmissionParts"]

_STRICT = ConfigDict(extra="forbid")


class SubmissionParts(BaseModel):
    """A submission with its reasoning apart."""

    model_config = _STRICT

    output: str
    thinking: str = ""


class BatchItem(BaseModel):
    """One submission to score: ``submission`` (text), or ``messages`` (a conversation)."""

    model_config = _STRICT

    submission: str | SubmissionParts | None = None
    messages: list[dict[str, Any]] | None = Field(default=None, min_length=1)
    system: str | list[dict[str, Any]] | None = None
    query: str | None = None
    reference: str | None = None
    references: list[str] | None = None
    fields: dict[str, str | list[str]] | None = None
    id: str | None = Field(default=None, max_length=256)

    @model_validator(mode="after")
    def _one_submission(self) -> BatchItem:
        if (self.submission is None) == (self.messages is None):
            raise ValueError("give 'submission' (text) or 'messages' (a conversation), one of them")
        if self.system is not None and self.messages is None:
            raise ValueError("'system' goes with 'messages' (Anthropic's system prompt)")
        return self

    def to_grade(self) -> Any:
        """What the grader grades: the text, its parts, or the conversation.

        Raises:
            ConversationError: the messages are malformed (the error names their path).
        """
        if self.messages is not None:
            # a request names none of the server's files: images come as bytes
            with media_source(allow_paths=False, allow_urls=False):
                conv, media = read_messages_with_media(
                    self.messages, system=self.system, where="messages"
                )
            return Submission.of_conversation(conv, media)
        sub = self.submission
        return sub if isinstance(sub, str) else sub.model_dump() if sub is not None else ""


class ScoreRequest(BatchItem):
    """``POST /score``: one submission against one rubric."""

    rubric: str = Field(min_length=1, max_length=128)
    version: str | None = Field(default=None, max_length=64)


class BatchRequest(BaseModel):
    """``POST /score/batch``: several submissions against one rubric."""

    model_config = _STRICT

    rubric: str = Field(min_length=1, max_length=128)
    version: str | None = Field(default=None, max_length=64)
    items: list[BatchItem] = Field(min_length=1)
