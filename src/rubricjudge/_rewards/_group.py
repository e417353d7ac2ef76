"""Group-relative rewards: each completion against the others of its prompt (GRPO's groups).

GRPO-style trainers sample several completions per prompt and learn from how each
compares with its siblings. :class:`GroupRelativeReward` wraps a
:class:`RubricReward` and turns its rewards into group-relative ones: the
completions that share a prompt form a group; within it each reward becomes
``(r - mean) / std`` (population std over the group's scored completions), or
``r - mean`` with ``scale=False``. A group whose rewards are all equal, or that
has one scored completion, gives 0.0 to each: nothing in it is better than the
rest. A completion that could not be scored stays None (never part of a group's
mean), so the wrapped reward's failure policy must be ``"raise"`` or ``"skip"``.

This is a normalisation of per-completion rubric scores, not a ranking: a group
judgment (the judge comparing the group's completions with each other) is
:class:`GroupRankReward` (``_rank``).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from .._aio import run_sync
from .._errors import ConfigError
from ._reward import RubricReward, message_text

__all__ = ["GroupRelativeReward", "group_relative"]


def group_relative(
    values: Sequence[float | None], groups: Sequence[Any], *, scale: bool = True
) -> list[float | None]:
    """``values`` made relative to their group's mean (and std when ``scale``); None stays None."""
    if len(values) != len(groups):
        raise ConfigError(f"{len(values)} values for {len(groups)} group keys; give one each")
    members: dict[Any, list[int]] = {}
    for i, g in enumerate(groups):
        members.setdefault(g, []).append(i)
    out: list[float | None] = [None] * len(values)
    for idx in members.values():
        scored = [v for i in idx if (v := values[i]) is not None]
        mean = statistics.fmean(scored) if scored else 0.0
        std = statistics.pstdev(scored) if len(scored) > 1 else 0.0
        for i in idx:
            v = values[i]
            if v is None:
                continue
            if std == 0.0:
                out[i] = 0.0
            else:
                out[i] = (v - mean) / std if scale else v - mean
    return out


class GroupRelativeReward:
    """A :class:`RubricReward` made group-relative (TRL's reward-function convention).

    Args:
        reward: the per-completion reward (``failure_policy`` ``"raise"`` or ``"skip"``,
            ``normalization`` None or ``"minmax"``).
        scale: divide by the group's std (default) or only subtract its mean.
        name: the ``__name__`` TRL logs (default the wrapped one's, plus ``_group``).
    """

    def __init__(self, reward: RubricReward, *, scale: bool = True, name: str | None = None):
        if reward.failure_policy == "value":
            raise ConfigError(
                "GroupRelativeReward needs a reward whose failures stay None: give it "
                "failure_policy='skip' or 'raise' (a failure value would move its group's mean)"
            )
        if reward.normalization == "zscore":
            raise ConfigError(
                "GroupRelativeReward normalises within each group; give it a reward with "
                "normalization=None or 'minmax', not 'zscore' over the whole batch"
            )
        self.reward = reward
        self.scale = scale
        self.__name__ = name or f"{reward.__name__}_group"

    @property
    def stats(self) -> Any:
        """The wrapped reward's counts (calls, scored, failures, judge errors)."""
        return self.reward.stats

    async def acall(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        """Async :meth:`__call__`."""
        values = await self.reward.acall(prompts, completions, **kwargs)
        if prompts is None:
            groups: list[Any] = [0] * len(values)
        else:
            groups = [message_text(p, "user", f"prompts[{i}]") for i, p in enumerate(prompts)]
        return group_relative(values, groups, scale=self.scale)

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        """Group-relative rewards, one per completion (completions sharing a prompt are a group)."""
        return run_sync(self.acall(prompts, completions, **kwargs))
