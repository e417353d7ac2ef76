"""Rubric scores as reinforcement-learning rewards (TRL ``GRPOTrainer`` reward functions)."""

from __future__ import annotations

from ._errors import RewardError
from ._rewards import (
    GroupRubricReward,
    RewardStats,
    RewardVariance,
    RubricReward,
    compute_reward_variance,
)

__all__ = [
    "GroupRubricReward",
    "RewardError",
    "RewardStats",
    "RewardVariance",
    "RubricReward",
    "compute_reward_variance",
]
