"""verifiers (0.4, ``verifiers.v1``): our judge scored by verifiers' own ``Task.score``.

Both ways verifiers runs a judge: called from a task's ``@vf.reward`` method, and
plugged by id through the task config's ``judges``. The judge is ``openai/...``
against the scripted chat server.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from rubricjudge._errors import ConfigError, RewardError
from tests.support.chat_server import ChatServer
from tests.support.reward_helpers import fruit_reply, write_rubric

if not os.environ.get("RUBRICJUDGE_REQUIRE_RL"):
    pytest.importorskip("verifiers.v1")

import verifiers.v1 as vf  # noqa: E402
from verifiers.v1.graph import MessageNode  # noqa: E402
from verifiers.v1.types import AssistantMessage, UserMessage  # noqa: E402

from rubricjudge.integrations.verifiers import (  # noqa: E402
    RubricJudgeReward,
    RubricJudgeRewardConfig,
)


class FruitData(vf.TaskData):
    answer: str = ""


def make_trace(reply: str, answer: str = "") -> Any:
    data = FruitData(idx=0, prompt="Name some fruit.", answer=answer)
    return vf.Trace(
        agent=vf.AgentInfo(config=vf.AgentConfig()),
        task=vf.TraceTask(type="Task", data=data),
        nodes=[
            MessageNode(
                parent=None, message=UserMessage(content="Name some fruit."), sampled=False
            ),
            MessageNode(parent=0, message=AssistantMessage(content=reply), sampled=True),
        ],
    )


def _config(rubric: Path, url: str, **kw: Any) -> RubricJudgeRewardConfig:
    return RubricJudgeRewardConfig(rubric=rubric, judge="openai/test", judge_base_url=url, **kw)


def test_called_from_a_task_reward(chat_server: ChatServer, tmp_path: Path) -> None:
    chat_server.handler = fruit_reply
    judge = RubricJudgeReward(_config(write_rubric(tmp_path), chat_server.base_url))

    class FruitTask(vf.Task[FruitData]):
        @vf.reward
        async def rubric(self, task: Any, trace: Any) -> float:
            return await judge.score(task, trace)

    trace = make_trace("apples, not bananas")
    asyncio.run(FruitTask(trace.task.data).score(trace, runtime=None))
    assert trace.rewards["rubric"].score == 1.0
    assert trace.metrics["rubric_judge_reward/failed"] == 0.0
    assert trace.extra_usage and trace.extra_usage[0].prompt_tokens == 80  # 2 calls x 40
    user = chat_server.chat_requests[0].json["messages"][-1]["content"]
    assert "Name some fruit." in user.split("The submission:")[0]


class PluggedConfig(vf.TasksetConfig):
    pass


def test_plugged_by_id_through_the_task_config(
    chat_server: ChatServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat_server.handler = fruit_reply
    # verifiers finds a plugged judge by a top-level module name exporting one Judge subclass
    (tmp_path / "fruit_rubric_judge.py").write_text(
        "from rubricjudge.integrations.verifiers import RubricJudgeReward\n\n"
        "class FruitRubricJudge(RubricJudgeReward):\n    pass\n\n"
        "__all__ = ['FruitRubricJudge']\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = {
        "id": "fruit_rubric_judge",
        "name": "fruit",
        "rubric": str(write_rubric(tmp_path / "r")),
        "judge": "openai/test",
        "judge_base_url": chat_server.base_url,
        "answer_field": "answer",
    }
    cfg = PluggedConfig.model_validate({"task": {"judges": [entry]}})

    class PlainTask(vf.Task[FruitData]):
        pass

    class PlainTaskset(vf.Taskset[PlainTask, PluggedConfig]):
        def load(self) -> list[PlainTask]:
            return []

    taskset = PlainTaskset(cfg)
    trace = make_trace("a banana", answer="apple and banana")
    asyncio.run(PlainTask(trace.task.data, taskset.config.task).score(trace, runtime=None))
    assert trace.rewards["fruit"].score == 0.5
    assert "apple and banana" in chat_server.chat_requests[0].json["messages"][-1]["content"]


def test_failures_raise_or_are_neutral_and_flagged(chat_server: ChatServer, tmp_path: Path) -> None:
    chat_server.handler = fruit_reply
    rubric = write_rubric(tmp_path)
    url = chat_server.base_url
    no_retry = {"max_retries": 0}  # the outage is final at once
    strict = RubricJudgeReward(_config(rubric, url, judge_options=no_retry))
    trace = make_trace("FAIL")
    with pytest.raises(RewardError, match="could not be scored"):
        asyncio.run(strict.score(trace.task.data, trace))
    neutral = RubricJudgeReward(
        _config(rubric, url, on_failure="neutral", neutral_reward=0.4, judge_options=no_retry)
    )
    assert asyncio.run(neutral.score(trace.task.data, trace)) == 0.4
    assert trace.metrics["rubric_judge_reward/failed"] == 1.0
    with pytest.raises(ConfigError, match="needs rubric="):
        RubricJudgeReward(RubricJudgeRewardConfig())
    with pytest.raises(ConfigError, match="has no 'gold' field"):
        gold = RubricJudgeReward(_config(rubric, url, answer_field="gold"))
        asyncio.run(gold.score(trace.task.data, make_trace("apple")))
