"""Rubric scores as reinforcement-learning rewards."""

from ._reward import FailurePolicyName, Normalization, RewardError, RewardStats, RubricReward

__all__ = ["FailurePolicyName", "Normalization", "RewardError", "RewardStats", "RubricReward"]
