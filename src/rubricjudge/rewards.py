"""Rubric scores as reinforcement-learning rewards.

- :class:`RubricReward`: a TRL ``GRPOTrainer`` reward function;
  :class:`GroupRelativeReward` makes it relative to each prompt's group.
- :class:`GroupRankReward`: a TRL reward function whose judge ranks each prompt's
  group of completions against each other (a completion's win rate in its group).
- :class:`RewardEngine`: per-rollout and batched rewards with a training failure
  policy (what the veRL and verifiers adapters use: ``rubricjudge.integrations``).
- OpenRLHF: ``rubricjudge serve`` answers ``POST /get_reward``.
- :func:`compute_reward_variance`: how much a rubric's reward moves when its
  judgments are asked again.

Guide: docs/rl-training.md.
"""

from __future__ import annotations

from ._errors import RewardError
from ._rewards._engine import RewardEngine
from ._rewards._group import GroupRelativeReward, group_relative
from ._rewards._rank import GroupRankReward
from ._rewards._reward import RewardStats, RubricReward
from ._rewards._variance import RewardVariance, compute_reward_variance

__all__ = [
    "GroupRankReward",
    "GroupRelativeReward",
    "RewardEngine",
    "RewardError",
    "RewardStats",
    "RewardVariance",
    "RubricReward",
    "compute_reward_variance",
    "group_relative",
]
