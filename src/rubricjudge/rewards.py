"""Rubric scores as reinforcement-learning rewards (a TRL ``GRPOTrainer`` reward function)."""

from __future__ import annotations

from ._errors import RewardError
from ._rewards import RewardStats, RubricReward

__all__ = [
    "RewardError",
    "RewardStats",
    "RubricReward",
]
