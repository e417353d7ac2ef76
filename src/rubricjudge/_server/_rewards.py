"""``POST /get_reward``: OpenRLHF's remote reward model protocol over a rubric.

OpenRLHF's trainer (``--reward.remote_url http://HOST:PORT/get_reward``) posts
``{"query": [...], "prompts": [...], "labels": [...]}``: each query is a prompt
and its response decoded as one text. The reply holds ``rewards`` (one per
query, in order), ``scores`` (the same values: OpenRLHF filters on them, and they
are in [0, 1]) and ``extra_logs`` (per-rollout numbers OpenRLHF logs), plus what
only rubricjudge reads: ``failed`` and ``errors`` per rollout, the rubric, and the
batch's ``usage`` (judge calls, cache hits, tokens, cost).

The rubric is the request's ``rubric`` (body key or ``?rubric=`` in the URL), else
the server's ``--rubric``. A label is the rollout's reference answer.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .._rewards._batch import RewardBatch, Rollout
from .._rewards._text import response_of

__all__ = ["RewardRequest", "log", "reply", "rollouts_of"]

log = logging.getLogger("rubricjudge.server")


class RewardRequest(BaseModel):
    """The body OpenRLHF's remote reward client sends (and the keys we add)."""

    model_config = ConfigDict(extra="forbid")

    query: list[str] = Field(min_length=1)
    prompts: list[str | None] | None = None
    labels: list[str | int | float | None] | None = None  # a dataset's answers may be numbers
    rubric: str | None = Field(default=None, min_length=1, max_length=128)
    version: str | None = Field(default=None, max_length=64)

    @field_validator("labels")
    @classmethod
    def _finite_labels(
        cls, labels: list[str | int | float | None] | None
    ) -> list[str | int | float | None] | None:
        # NaN and Infinity (which JSON readers accept) are no reference answer: as text
        # "nan" they would be shown to the judge as if the dataset held that answer
        for i, label in enumerate(labels or []):
            if isinstance(label, float) and not math.isfinite(label):
                raise ValueError(
                    f"labels[{i}] is {label}; a label is text, a finite number or null"
                )
        return labels

    @model_validator(mode="after")
    def _same_lengths(self) -> RewardRequest:
        n = len(self.query)
        for key in ("prompts", "labels"):
            values = getattr(self, key)
            if values is not None and len(values) != n:
                raise ValueError(f"{key} has {len(values)} entries for {n} queries; give one each")
        return self


def rollouts_of(body: RewardRequest) -> list[Rollout]:
    """One rollout per query: the response is the query minus its prompt."""
    out = []
    for i, query in enumerate(body.query):
        prompt = body.prompts[i] if body.prompts is not None else None
        label = body.labels[i] if body.labels is not None else None
        label = None if label is None else str(label)
        try:
            out.append(Rollout(response_of(query, prompt), prompt, label))
        except ValueError as e:
            out.append(Rollout("", prompt, label, error=f"query[{i}]: {e}"))
    return out


def reply(
    batch: RewardBatch,
    rewards: list[float | None],
    rubric_id: str,
    version: str | None,
) -> dict[str, Any]:
    """The JSON reply: OpenRLHF's keys first, then ours."""
    failed = batch.failed
    return {
        "rewards": rewards,
        "scores": rewards,
        # numbers only, one per rollout: OpenRLHF makes each value a tensor and logs it
        "extra_logs": {
            "rubric_failed": [1.0 if f else 0.0 for f in failed],
            "rubric_judge_errors": [float(k) for k in batch.judge_errors],
        },
        "failed": failed,
        "errors": batch.errors,
        "rubric": rubric_id,
        "version": version,
        "usage": batch.usage(),
    }


def reward_schemas() -> dict[str, Any]:
    """The OpenAPI schemas of ``/get_reward``'s body and reply."""
    strs = {"type": "array", "items": {"type": ["string", "null"]}}
    nums = {"type": "array", "items": {"type": ["number", "null"]}}
    return {
        "RewardRequest": {
            "type": "object",
            "description": "OpenRLHF's reward body: each query is a prompt and its response.",
            "properties": {
                "query": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "prompts": strs,
                "labels": {
                    "type": "array",
                    "items": {"type": ["string", "number", "null"]},
                    "description": "Reference answers, one per query.",
                },
                "rubric": {"type": "string", "description": "Rubric id (or ?rubric= in the URL)."},
                "version": {"type": ["string", "null"]},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        "RewardResponse": {
            "type": "object",
            "properties": {
                "rewards": nums,
                "scores": nums,
                "extra_logs": {"type": "object", "additionalProperties": nums},
                "failed": {"type": "array", "items": {"type": "boolean"}},
                "errors": strs,
                "rubric": {"type": "string"},
                "version": {"type": ["string", "null"]},
                "usage": {"type": "object"},
            },
            "required": ["rewards", "scores", "extra_logs", "failed", "errors", "usage"],
        },
    }
