"""Rubric scores as reinforcement-learning rewards."""

from ._batch import OnFailure, RewardBatch, Rollout, grade_rewards
from ._engine import RewardEngine
from ._group import GroupRelativeReward, group_relative
from ._reward import FailurePolicyName, Normalization, RewardError, RewardStats, RubricReward

__all__ = [
    "FailurePolicyName",
    "GroupRelativeReward",
    "Normalization",
    "OnFailure",
    "RewardBatch",
    "RewardEngine",
    "RewardError",
    "RewardStats",
    "Rollout",
    "RubricReward",
    "grade_rewards",
    "group_relative",
]
