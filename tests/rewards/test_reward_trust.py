"""`serve` and the reward adapters take grade's trust options; rewards ask no reasons by default.

The judge is ``openai/test`` against the scripted chat server, which counts the calls:
with ``verdict-only`` every criterion that costs points gets one more call for its
reason under ``grade``; a reward, which nobody reads the reasons of, does without.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rubricjudge._cli.cmd_serve import server_settings
from rubricjudge._cli.main import build_parser
from rubricjudge._errors import ConfigError
from rubricjudge._server._app import create_app
from tests.support.chat_server import ChatServer
from tests.support.reward_helpers import fruit_reply, write_rubric
from tests.support.served import Served

ROLLOUTS = ["apples", "nothing"]  # 4 criteria judged; 3 UNMET cost points


@pytest.fixture
def judge_env(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> ChatServer:
    chat_server.handler = fruit_reply
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    return chat_server


def _serve_args(rubric: Path, server: ChatServer, *extra: str) -> Any:
    argv = ["serve", "--rubric", str(rubric), "--no-auth", "--judge", "openai/test"]
    argv += ["--base-url", server.base_url, "--no-cache", "--verdict-method", "verdict-only"]
    return build_parser().parse_args([*argv, *extra])


def _calls(server: ChatServer) -> int:
    """The chat calls made since the last count (the server keeps answering as before)."""
    n = len(server.chat_requests)
    server.requests.clear()
    return n


def test_get_reward_asks_no_reasons_while_score_does(judge_env: ChatServer, tmp_path: Path) -> None:
    rubric = write_rubric(tmp_path / "r")
    settings = server_settings(_serve_args(rubric, judge_env))
    with Served(create_app(settings)) as served, served.client(None) as c:
        r = c.post("/get_reward", json={"query": ROLLOUTS})
        assert r.status_code == 200, r.text
        assert r.json()["rewards"] == [0.5, 0.0]
        assert _calls(judge_env) == 4  # one per criterion and rollout, no reasons

        for text in ROLLOUTS:
            assert c.post("/score", json={"rubric": "fruit", "submission": text}).status_code == 200
        assert _calls(judge_env) == 4 + 3  # /score explains the three UNMET

    settings = server_settings(_serve_args(rubric, judge_env, "--reward-reasons"))
    with Served(create_app(settings)) as served, served.client(None) as c:
        assert c.post("/get_reward", json={"query": ROLLOUTS}).status_code == 200
        assert _calls(judge_env) == 4 + 3

    settings = server_settings(_serve_args(rubric, judge_env, "--no-reasons"))
    with Served(create_app(settings)) as served, served.client(None) as c:
        assert (
            c.post("/score", json={"rubric": "fruit", "submission": "nothing"}).status_code == 200
        )
        assert _calls(judge_env) == 2


def test_serve_takes_a_calibration_file(judge_env: ChatServer, tmp_path: Path) -> None:
    rubric = write_rubric(tmp_path / "r")
    missing = tmp_path / "nope.json"
    with pytest.raises(ConfigError, match="nope.json"):
        server_settings(_serve_args(rubric, judge_env, "--calibration", str(missing)))


def test_rubric_reward_from_a_spec_asks_no_reasons(
    judge_env: ChatServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rubricjudge.rewards import RubricReward

    monkeypatch.setenv("OPENAI_BASE_URL", judge_env.base_url)
    rubric = write_rubric(tmp_path / "r")
    reward = RubricReward(str(rubric), "openai/test", verdict_method="verdict-only")
    assert reward(prompts=["Name fruit."] * 2, completions=ROLLOUTS) == [0.5, 0.0]
    assert reward.grader.reasons is False
    assert _calls(judge_env) == 4

    asked = RubricReward(str(rubric), "openai/test", verdict_method="verdict-only", reasons=True)
    asked(prompts=["Name fruit."] * 2, completions=ROLLOUTS)
    assert _calls(judge_env) == 3  # the verdicts come from the response cache; 3 reasons


def test_rubric_reward_refuses_trust_options_beside_a_grader(tmp_path: Path) -> None:
    from rubricjudge import CriterionGrader
    from rubricjudge.rewards import RubricReward

    rubric = write_rubric(tmp_path / "r")
    with pytest.raises(ConfigError, match="set them on the grader"):
        RubricReward(str(rubric), CriterionGrader(judge="fake"), reasons=True)


def test_verl_reward_kwargs_take_the_trust_options(
    judge_env: ChatServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rubricjudge.integrations.verl import compute_score

    monkeypatch.setenv("OPENAI_BASE_URL", judge_env.base_url)
    rubric = write_rubric(tmp_path / "r")
    kwargs = {"rubric": str(rubric), "judge": "openai/test", "verdict_method": "verdict-only"}
    result = compute_score(data_source="x", solution_str="nothing", ground_truth=None, **kwargs)
    assert result["score"] == 0.0
    assert _calls(judge_env) == 2  # no reasons
