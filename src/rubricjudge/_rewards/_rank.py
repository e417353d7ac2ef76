"""Group-ranked rubric rewards for GRPO-style trainers (TRL's ``GRPOTrainer``).

The judge compares a group's completions with each other here; for per-completion
rubric scores made relative to their group's mean, see :class:`GroupRelativeReward`
(``_group``).

:class:`GroupRankReward` is called as TRL calls a reward function,
``reward(prompts=..., completions=..., **columns)``. Completions with the same
prompt form a group (TRL repeats each prompt once per generation); every group is
ranked with a :class:`GroupRanker` and each completion's reward is its win rate
within its group, in [0, 1] (see ``_model._group``). A group of one gets 0.5.

Failures: a completion the ranker could not place follows ``failure_policy``:
``"skip"`` (the default) gives None, which TRL reads as "no reward"; ``"value"``
gives ``failure_value``; ``"raise"`` raises :class:`RewardError`. Usage errors
are always raised.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Sequence
from typing import Any

from .._aio import gather_all, run_sync
from .._errors import ConfigError, RewardError
from .._graders._group import GroupRanker
from .._model._group import GroupReport
from .._model._rubric import Rubric
from ._reward import FailurePolicyName, RewardStats, message_text

__all__ = ["GroupRankReward"]


def _group_key(prompt: Any) -> str:
    return prompt if isinstance(prompt, str) else json.dumps(prompt, sort_keys=True, default=str)


class GroupRankReward:
    """A rubric as a group-relative reward function (TRL ``GRPOTrainer``'s convention).

    Args:
        rubric: the rubric (a :class:`~rubricjudge.Rubric`, or a path to a rubric file).
        ranker: a :class:`GroupRanker`, or a judge spec string to build one with.
        method: the ranker's method when one is built here (``criteria`` or ``listwise``).
        failure_policy: ``"skip"`` (None), ``"value"`` (``failure_value``) or ``"raise"``.
        failure_value: the reward of an unplaced completion under ``"value"``.
        concurrency: groups ranked at once within one call.
        reference_key: the dataset column holding the reference answer.
        name: the ``__name__`` TRL logs (default ``group_rank_reward``).
    """

    def __init__(
        self,
        rubric: Rubric | str,
        ranker: GroupRanker | str | None = None,
        *,
        method: str = "criteria",
        failure_policy: FailurePolicyName = "skip",
        failure_value: float = 0.0,
        concurrency: int = 4,
        reference_key: str = "reference",
        name: str | None = None,
    ) -> None:
        if not isinstance(rubric, Rubric):
            rubric = Rubric.from_file(rubric)
        if failure_policy not in ("raise", "skip", "value"):
            raise ConfigError(
                f"failure_policy {failure_policy!r} is not 'raise', 'skip' or 'value'"
            )
        if not (isinstance(failure_value, int | float) and math.isfinite(failure_value)):
            raise ConfigError(f"failure_value {failure_value!r} is not a finite number")
        if concurrency < 1:
            raise ConfigError(f"concurrency {concurrency!r} must be at least 1")
        if ranker is None or isinstance(ranker, str):
            ranker = GroupRanker(ranker, method=method)
        self.rubric = rubric
        self.ranker = ranker
        self.failure_policy: FailurePolicyName = failure_policy
        self.failure_value = float(failure_value)
        self.concurrency = concurrency
        self.reference_key = reference_key
        self.__name__ = name or "group_rank_reward"
        self.stats = RewardStats()
        self.last_reports: list[GroupReport] = []

    async def acall(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        """Async :meth:`__call__`: one reward per completion, in order."""
        if completions is None:
            raise ConfigError("a reward function needs completions=[...]")
        n = len(completions)
        if prompts is None:
            prompts = [None] * n
        if len(prompts) != n:
            raise ConfigError(
                f"{len(prompts)} prompts for {n} completions; give one per completion"
            )
        groups: dict[str, list[int]] = {}
        for i, p in enumerate(prompts):
            groups.setdefault(_group_key(p), []).append(i)
        refs = kwargs.get(self.reference_key)
        sem = asyncio.Semaphore(self.concurrency)

        async def rank(members: list[int]) -> GroupReport:
            first = members[0]
            p = prompts[first]
            query = message_text(p, "user", f"prompts[{first}]") if p is not None else None
            texts = [
                message_text(completions[i], "assistant", f"completions[{i}]") for i in members
            ]
            reference = refs[first] if isinstance(refs, Sequence) and len(refs) == n else None
            async with sem:
                return await self.ranker.rank(
                    self.rubric,
                    texts,
                    query=query,
                    reference_submission=reference if isinstance(reference, str) else None,
                    item_id=f"group {first}",
                )

        reports = await gather_all([rank(m) for m in groups.values()])
        self.last_reports = list(reports)
        rewards: list[float | None] = [None] * n
        failed: list[str] = []
        for members, report in zip(groups.values(), reports, strict=True):
            self.stats.judge_errors += report.error_count
            for i, value in zip(members, report.rewards, strict=True):
                rewards[i] = value
                if value is None:
                    failed.append(f"completion #{i}: {report.error or 'not placed'}")
        self.stats.calls += 1
        self.stats.completions += n
        self.stats.failures += len(failed)
        self.stats.scored += n - len(failed)
        self.stats.failure_messages.extend(failed)
        if failed and self.failure_policy == "raise":
            raise RewardError(
                f"{len(failed)} of {n} completions could not be placed; first: {failed[0]} "
                "(pass failure_policy='skip' or 'value' to keep training)"
            )
        if self.failure_policy == "value":
            return [self.failure_value if r is None else r for r in rewards]
        return rewards

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        """Rank a batch's groups (TRL's reward-function call); blocks, even inside an event loop."""
        return run_sync(self.acall(prompts, completions, **kwargs))
