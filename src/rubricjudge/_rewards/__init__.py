"""Rubric scores as reinforcement-learning rewards."""

from ._batch import OnFailure, RewardBatch, Rollout, grade_rewards
from ._engine import RewardEngine
from ._group import GroupRelativeReward, group_relative
from ._rank import GroupRankReward
from ._reward import FailurePolicyName, Normalization, RewardError, RewardStats, RubricReward
from ._variance import RewardVariance, compute_reward_variance

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
