"""The scoring server's request bodies (checked strictly: unknown keys are errors)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BatchItem", "BatchRequest", "ScoreRequest", "SubmissionParts"]

_STRICT = ConfigDict(extra="forbid")


class SubmissionParts(BaseModel):
    """A submission with its reasoning apart."""

    model_config = _STRICT

    output: str
    thinking: str = ""


class BatchItem(BaseModel):
    """One submission to score."""

    model_config = _STRICT

    submission: str | SubmissionParts
    query: str | None = None
    reference: str | None = None
    references: list[str] | None = None
    fields: dict[str, str | list[str]] | None = None
    id: str | None = Field(default=None, max_length=256)


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
