"""Rubric scores as reinforcement-learning rewards."""

from ._group import GroupRubricReward
from ._reward import FailurePolicyName, Normalization, RewardError, RewardStats, RubricReward
from ._variance import RewardVariance, compute_reward_variance

__all__ = [
    "FailurePolicyName",
    "GroupRubricReward",
    "Normalization",
    "RewardError",
    "RewardStats",
    "RewardVariance",
    "RubricReward",
    "compute_reward_variance",
]
