"""veRL reward functions over a rubric (no extra needed; veRL imports this by path).

In veRL's config (``reward.custom_reward_function`` in veRL 0.9; top-level
``custom_reward_function`` in older releases)::

    reward.custom_reward_function.path=pkg://rubricjudge.integrations.verl
    reward.custom_reward_function.name=compute_score_async
    +reward.custom_reward_function.reward_kwargs.rubric=/path/to/rubric.yaml
    +reward.custom_reward_function.reward_kwargs.judge=openai/gpt-4.1-mini

- :func:`compute_score`: ``(data_source, solution_str, ground_truth, extra_info)``.
- :func:`compute_score_async`: the same, awaited by veRL's reward loop (concurrent).
- :func:`compute_score_batch`: the ``batch`` reward manager's batched call.

Each returns ``{"score": reward, "rubric_failed": 0 or 1, ...}`` per rollout.
Every ``reward_kwargs`` key and the failure policy: docs/rl-training.md#verl.
"""

from rubricjudge._rewards._verl import compute_score, compute_score_async, compute_score_batch

__all__ = ["compute_score", "compute_score_async", "compute_score_batch"]
