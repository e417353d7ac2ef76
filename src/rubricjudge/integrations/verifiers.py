"""A verifiers judge whose reward is a rubricjudge rubric (``pip install verifiers``).

Written against verifiers 0.4 (``verifiers.v1``), where a reward that needs an LLM
judge is a :class:`verifiers.v1.Judge` with ``score(task, trace)``, called from a
task's ``@vf.reward`` method or plugged through a task config's ``judges``.
:class:`RubricJudgeReward` grades the trace's reply against a rubric, criterion
by criterion, with rubricjudge's judges, calibration and failure policy::

    import verifiers.v1 as vf
    from rubricjudge.integrations.verifiers import RubricJudgeReward, RubricJudgeRewardConfig

    config = RubricJudgeRewardConfig(rubric="rubric.yaml", judge="openai/gpt-4.1-mini")
    RUBRIC = RubricJudgeReward(config)

    class MyTask(vf.Task[MyData, vf.State, vf.TaskConfig]):
        @vf.reward
        async def rubric(self, task, trace) -> float:
            return await RUBRIC.score(task, trace)

Each call records ``<name>/failed`` and ``<name>/judge_errors`` metrics on the
trace and adds the judge's tokens and cost to ``trace.extra_usage``, as
verifiers' own judges do. A rollout the judge could not score raises (verifiers
then marks the rollout's scoring as failed; ``on_failure="error"``, the default)
or gets ``neutral_reward`` with ``<name>/failed`` = 1 (``on_failure="neutral"``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from verifiers.v1 import Judge, JudgeConfig, Usage
from verifiers.v1.judge import judge_question, judge_response

from rubricjudge._errors import ConfigError
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._rewards._engine import RewardEngine

__all__ = ["RubricJudgeReward", "RubricJudgeRewardConfig"]


class RubricJudgeRewardConfig(JudgeConfig):
    """Which rubric and judge; which parts of the task and trace are graded."""

    rubric: Path | None = None
    """The rubric file (any format rubricjudge reads)."""
    judge: str = "local"
    """rubricjudge's judge spec: ``local``, ``openai/<model>``, ``anthropic/<model>`` ..."""
    judge_base_url: str | None = None
    """An OpenAI-compatible server for the judge (several, separated by commas: a fleet)."""
    judge_options: dict[str, Any] = {}
    """More judge options (``timeout_s``, ``max_retries``, ``cache`` ...: docs/judges.md)."""
    question_field: str = ""
    """Task field holding the question; empty: the task's prompt as text."""
    answer_field: str = ""
    """Task field holding a reference answer shown to the judge; empty: none."""
    view: Literal["last_reply", "full_trace"] = "last_reply"
    """What is graded: the last reply (default) or the whole transcript."""
    on_failure: Literal["error", "neutral"] = "error"
    """A rollout the judge could not score: raise (default) or give ``neutral_reward``."""
    neutral_reward: float = 0.5


class RubricJudgeReward(Judge[float, RubricJudgeRewardConfig]):
    """A verifiers judge scoring a trace with a rubricjudge rubric (reward in [0, 1])."""

    def __init__(self, config: RubricJudgeRewardConfig | None = None) -> None:
        super().__init__(config)
        if self.config.rubric is None:
            raise ConfigError("RubricJudgeRewardConfig needs rubric= (a rubric file)")

        options: dict[str, Any] = dict(self.config.judge_options)
        if self.config.judge_base_url:
            options["base_url"] = self.config.judge_base_url
        self.engine = RewardEngine(
            self.config.rubric,
            CriterionGrader(judge=self.config.judge, judge_options=options),
            on_failure=self.config.on_failure,
            neutral_value=self.config.neutral_reward,
            flag="RubricJudgeRewardConfig.on_failure",
        )

    async def score(self, task: Any, trace: Any) -> float:
        """The rubric's score of the trace's reply (or transcript) for ``task``."""
        reference = None
        if self.config.answer_field:
            answer = getattr(task, self.config.answer_field, None)
            if answer is None:
                raise ConfigError(
                    f"the task has no {self.config.answer_field!r} field; point answer_field "
                    "at its reference-answer field or leave it empty"
                )
            reference = "\n".join(map(str, answer)) if isinstance(answer, list) else str(answer)
        result, report = await self.engine.grade_one(
            judge_response(trace, self.config.view),
            query=judge_question(task, self.config.question_field),
            reference=reference,
        )
        name = self.reward_name
        trace.record_metric(f"{name}/failed", result["rubric_failed"])
        trace.record_metric(f"{name}/judge_errors", result["rubric_judge_errors"])
        tokens = report.token_usage if report is not None else None
        if tokens is not None:  # the judge's spend, apart from the agent's (as verifiers' judges)
            trace.extra_usage.append(
                Usage(
                    prompt_tokens=tokens.prompt_tokens,
                    completion_tokens=tokens.completion_tokens,
                    cost=report.completion_cost if report is not None else None,
                )
            )
        return result["score"]
