"""Rubric scores as reinforcement-learning rewards.

- :class:`RubricReward`: a TRL ``GRPOTrainer`` reward function;
  :class:`GroupRelativeReward` makes it relative to each prompt's group.
- :class:`RewardEngine`: per-rollout and batched rewards with a training failure
  policy (what the veRL and verifiers adapters use: ``rubricjudge.integrations``).
- OpenRLHF: ``rubricjudge serve`` answers ``POST /get_reward``.

Guide: docs/rl-training.md.
"""

from __future__ import annotations

from ._errors import RewardError
from ._rewards import GroupRelativeReward, RewardEngine, RewardStats, RubricReward, group_relative

__all__ = [
    "GroupRelativeReward",
    "RewardEngine",
    "RewardError",
    "RewardStats",
    "RubricReward",
    "group_relative",
]
