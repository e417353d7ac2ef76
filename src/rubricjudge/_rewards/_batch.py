"""A batch of rollouts graded as rewards through the run engine, with a failure policy.

:func:`grade_rewards` is what the reward endpoints of trainers share (OpenRLHF's
``/get_reward`` on ``serve``, veRL's batched reward manager, the verifiers judge):
it grades every rollout of a batch with a pool of workers over one
:class:`~rubricjudge._runs._engine.RunSession` (no run directory), so an item
whose grading raised is an outcome like any other, and the session's judge
wrappers count every call, its tokens and its cost. Order is kept: the i-th
reward is the i-th rollout's.

The reward of a rollout is the rubric's score in [0, 1]. A rollout that could not
be scored (every criterion's judge failed, the grader raised, or its text could
not be taken apart) is *failed*: it never gets a silent 0. What it gets instead
is the failure policy (:data:`OnFailure`):

- ``"error"`` (the default): the whole batch is an error the trainer sees.
- ``"skip"``: its reward is None (TRL reads None as "no reward").
- ``"neutral"``: its reward is ``neutral_value`` (default 0.5, the middle of [0, 1]).

Whatever the policy, a batch in which no rollout could be scored is an error: a
judge that is down must stop training, not feed it neutral values.

Hook for repeated judging: ``grader`` may be any grader, so a grader that asks
each judgment several times and takes the majority (``--repeats``, built with
pairwise judging) plugs in here unchanged.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .._aio import gather_all
from .._errors import ConfigError
from .._model._reports import EvaluationReport, TokenUsage
from .._model._rubric import Rubric
from .._model._scoring import complete_score, failure_reason

if TYPE_CHECKING:
    from .._runs._job import RunGrader

__all__ = [
    "DEFAULT_NEUTRAL",
    "ON_FAILURE",
    "OnFailure",
    "RewardBatch",
    "Rollout",
    "check_policy",
    "grade_rewards",
]

OnFailure = Literal["error", "skip", "neutral"]
ON_FAILURE: tuple[OnFailure, ...] = ("error", "skip", "neutral")
DEFAULT_NEUTRAL = 0.5
_EXAMPLES = 5


def check_policy(on_failure: str, neutral_value: float, *, flag: str = "on_failure") -> None:
    """Raise :class:`ConfigError` for a policy name or neutral value that cannot be used."""
    if on_failure not in ON_FAILURE:
        raise ConfigError(
            f"{flag} {on_failure!r} is not one of 'error', 'skip' or 'neutral' "
            "(see docs/rl-training.md#when-the-judge-fails)"
        )
    if not (isinstance(neutral_value, int | float) and math.isfinite(neutral_value)):
        raise ConfigError(f"the neutral reward {neutral_value!r} is not a finite number")


@dataclass(frozen=True, slots=True)
class Rollout:
    """One rollout to grade: the response, its prompt, a reference; or why it cannot be."""

    response: str
    query: str | None = None
    reference: str | None = None
    error: str | None = None  # found before grading (say, a query that lacks its prompt)


@dataclass
class RewardBatch:
    """What grading a batch gave: per rollout and in total."""

    scores: list[float | None]
    errors: list[str | None]
    judge_errors: list[int]
    judge_calls: int = 0
    cached_calls: int = 0
    tokens: TokenUsage | None = None
    cost: float | None = None
    wall_s: float = 0.0
    reports: list[EvaluationReport | None] = field(default_factory=list)

    @property
    def failed(self) -> list[bool]:
        """Per rollout: True when it could not be scored."""
        return [s is None for s in self.scores]

    @property
    def n_failed(self) -> int:
        """How many rollouts could not be scored."""
        return sum(1 for s in self.scores if s is None)

    def failure(self, on_failure: OnFailure) -> str | None:
        """Why the batch as a whole is an error under ``on_failure``, or None when it is not."""
        n, bad = len(self.scores), self.n_failed
        if not bad or (on_failure != "error" and bad < n):
            return None
        shown = [f"#{i}: {e}" for i, e in enumerate(self.errors) if e is not None][:_EXAMPLES]
        what = (
            f"none of the {n} rollouts could be scored"
            if bad == n
            else f"{bad} of {n} rollouts could not be scored and the failure policy is 'error'"
        )
        return f"{what}; " + "; ".join(shown)

    def rewards(self, on_failure: OnFailure, neutral_value: float) -> list[float | None]:
        """The rewards under ``on_failure`` (call :meth:`failure` first for ``"error"``)."""
        fill = None if on_failure == "skip" else float(neutral_value)
        return [fill if s is None else s for s in self.scores]

    def usage(self) -> dict[str, Any]:
        """The batch's totals: rollouts, failures, judge calls, cache hits, tokens, cost, time."""
        t = self.tokens
        return {
            "rollouts": len(self.scores),
            "failed": self.n_failed,
            "judge_errors": sum(self.judge_errors),
            "judge_calls": self.judge_calls,
            "cached_calls": self.cached_calls,
            "prompt_tokens": t.prompt_tokens if t else 0,
            "completion_tokens": t.completion_tokens if t else 0,
            "total_tokens": t.total_tokens if t else 0,
            "cost": None if self.cost is None else round(self.cost, 8),
            "wall_s": round(self.wall_s, 4),
        }

    def log_line(self) -> str:
        """One line for the server log."""
        u = self.usage()
        cost = "unknown" if u["cost"] is None else f"${u['cost']:.6f}"
        return (
            f"{u['rollouts']} rollouts, {u['failed']} failed, {u['judge_errors']} judge errors; "
            f"{u['judge_calls']} judge calls ({u['cached_calls']} from the cache), "
            f"{u['total_tokens']} tokens, cost {cost}, {u['wall_s']:.2f}s"
        )


async def grade_rewards(
    rubric: Rubric,
    grader: RunGrader,
    rollouts: Sequence[Rollout],
    *,
    concurrency: int = 8,
    gate: asyncio.Semaphore | None = None,
    keep_reports: bool = False,
) -> RewardBatch:
    """Grade ``rollouts`` against ``rubric`` with ``concurrency`` workers, in order.

    ``gate`` (if given) is held while each rollout is graded: a server shares one
    between its requests, so many small requests cannot together exceed it.

    Raises:
        UsageError: a misconfiguration (a bad rubric or judge), which fails every rollout.
    """
    # deferred: the CLI reads this module's defaults for --help; the run engine loads on use
    from .._runs._engine import RunSession
    from .._runs._job import Job

    n = len(rollouts)
    scores: list[float | None] = [None] * n
    errors: list[str | None] = [None] * n
    judge_errors = [0] * n
    reports: list[EvaluationReport | None] = [None] * n if keep_reports else []
    cached = 0
    start = time.perf_counter()
    with RunSession(grader, None, total=n) as session:
        pending = iter(range(n))

        async def grade_one(i: int) -> None:
            nonlocal cached
            r = rollouts[i]
            if r.error is not None:
                errors[i] = r.error
                return
            job = Job(i, str(i), rubric, r.response, r.query, r.reference)
            outcome, report = await session.grade(job)
            if report is None:
                errors[i] = outcome.error or "the grader gave no report"
                return
            cached += report.cached_calls
            judge_errors[i] = report.error_count
            if keep_reports:
                reports[i] = report
            score = complete_score(report)  # no reward from a judge that failed, even partly
            if score is None:
                errors[i] = failure_reason(report) or "no criterion could be graded"
            else:
                scores[i] = score

        async def worker() -> None:
            for i in pending:
                if gate is None:
                    await grade_one(i)
                else:
                    async with gate:
                        await grade_one(i)

        await gather_all([worker() for _ in range(max(1, min(concurrency, n)))])
        summary = session.summary()
    return RewardBatch(
        scores=scores,
        errors=errors,
        judge_errors=judge_errors,
        judge_calls=summary.judge_calls,
        cached_calls=cached,
        tokens=summary.tokens,
        cost=summary.cost,
        wall_s=time.perf_counter() - start,
        reports=reports,
    )
