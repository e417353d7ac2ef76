"""How the scoring server behaves: its settings, read by the app and the OpenAPI document."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._errors import ConfigError
from .._rewards._batch import DEFAULT_NEUTRAL, OnFailure, check_policy
from ._sources import RubricSource

if TYPE_CHECKING:
    from .._model._reports import EvaluationReport
    from .._model._rubric import Rubric
    from .._model._seams import AsyncGrader

__all__ = ["DEFAULT_MAX_BATCH", "DEFAULT_MAX_BODY", "DEFAULT_TIMEOUT_S", "ServerSettings"]

DEFAULT_MAX_BODY = 1024 * 1024
DEFAULT_MAX_BATCH = 64
DEFAULT_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class ServerSettings:
    """How the server behaves.

    Args:
        source: where rubrics come from (directory or registry).
        grader: any grader object (``CriterionGrader(judge=...)``); rubrics with
            hybrid metrics are graded through a ``HybridGrader`` around it.
        token: the bearer token every protected request must carry; None turns
            authentication off (the CLI allows that only on loopback, explicitly).
        max_body_bytes: the largest request body accepted (413 above).
        max_batch: the most items in one ``/score/batch`` (422 above).
        concurrency: items of one batch graded at once.
        timeout_s: how long one request may grade (a whole batch included) before
            it is answered 504 and its judge calls are cancelled.
        default_rubric: the rubric id ``/get_reward`` grades with when a request names
            none (``serve --rubric FILE`` sets it).
        on_failure: ``/get_reward``'s failure policy: ``"error"``, ``"skip"`` or
            ``"neutral"`` (see :mod:`rubricjudge._rewards._batch`).
        neutral_value: the reward of a failed rollout under ``"neutral"``.
        reward_grader: the grader of ``/get_reward`` (None: ``grader``); ``serve``
            gives it the same judges without reasons, which no trainer reads.
    """

    source: RubricSource
    grader: AsyncGrader[Rubric, EvaluationReport]
    token: str | None
    max_body_bytes: int = DEFAULT_MAX_BODY
    max_batch: int = DEFAULT_MAX_BATCH
    concurrency: int = 8
    timeout_s: float = DEFAULT_TIMEOUT_S
    default_rubric: str | None = None
    on_failure: OnFailure = "error"
    neutral_value: float = DEFAULT_NEUTRAL
    reward_grader: AsyncGrader[Rubric, EvaluationReport] | None = None

    def __post_init__(self) -> None:
        check_policy(self.on_failure, self.neutral_value)
        if self.token is not None and not self.token.strip():
            raise ConfigError("the server token is empty; give a real token or None")
        for name in ("max_body_bytes", "max_batch", "concurrency"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} {getattr(self, name)!r} must be at least 1")
        if not self.timeout_s > 0:
            raise ConfigError(f"timeout_s {self.timeout_s!r} must be a positive number of seconds")
