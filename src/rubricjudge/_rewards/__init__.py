"""Rubric scores as reinforcement-learning rewards.

The names load on first use, so the CLI reads its defaults (``_rewards._batch``)
without loading the graders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from ._batch import OnFailure, RewardBatch, Rollout, grade_rewards
    from ._engine import RewardEngine
    from ._group import GroupRelativeReward, group_relative
    from ._rank import GroupRankReward
    from ._reward import FailurePolicyName, Normalization, RewardError, RewardStats, RubricReward
    from ._variance import RewardVariance, compute_reward_variance

_LAZY: dict[str, str] = {
    "OnFailure": "._batch",
    "RewardBatch": "._batch",
    "Rollout": "._batch",
    "grade_rewards": "._batch",
    "RewardEngine": "._engine",
    "GroupRelativeReward": "._group",
    "group_relative": "._group",
    "GroupRankReward": "._rank",
    "FailurePolicyName": "._reward",
    "Normalization": "._reward",
    "RewardError": "._reward",
    "RewardStats": "._reward",
    "RubricReward": "._reward",
    "RewardVariance": "._variance",
    "compute_reward_variance": "._variance",
}


__getattr__, __dir__ = _lazy_exports(__name__, _LAZY, globals())


__all__ = [
    "FailurePolicyName",
    "GroupRankReward",
    "GroupRelativeReward",
    "Normalization",
    "OnFailure",
    "RewardBatch",
    "RewardEngine",
    "RewardError",
    "RewardStats",
    "RewardVariance",
    "Rollout",
    "RubricReward",
    "compute_reward_variance",
    "grade_rewards",
    "group_relative",
]
