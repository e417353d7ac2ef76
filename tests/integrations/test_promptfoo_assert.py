"""The promptfoo assertion called as promptfoo calls it (no node needed; the real
``promptfoo eval`` is in test_promptfoo.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricjudge._errors import ConfigError, JudgeError
from rubricjudge.integrations.promptfoo import get_assert
from tests.support.chat_server import ChatServer
from tests.support.reward_helpers import fruit_reply, write_rubric


def _context(tmp_path: Path, server: ChatServer, **config: object) -> dict[str, object]:
    server.handler = fruit_reply
    options = {"base_url": server.base_url, "api_key": "k", "max_retries": 0}
    base = {"rubric": str(write_rubric(tmp_path)), "judge": "openai/m", "judge_options": options}
    return {"prompt": "Name fruit.", "vars": {"q": "Name fruit."}, "config": base | config}


def test_grading_result_shape(tmp_path: Path, chat_server: ChatServer) -> None:
    result = get_assert(
        "only apples", _context(tmp_path, chat_server, threshold=0.5, query_var="q")
    )
    assert result["pass"] is True and result["score"] == 0.5
    assert result["namedScores"] == {"apples": 1.0, "bananas": 0.0}
    assert [c["pass"] for c in result["componentResults"]] == [True, False]
    assert result["reason"].startswith("rubric score 0.5 (threshold 0.5)")


def test_a_judge_outage_raises_never_a_score(tmp_path: Path, chat_server: ChatServer) -> None:
    with pytest.raises(JudgeError, match="could not be graded"):
        get_assert("FAIL", _context(tmp_path, chat_server))


def test_config_mistakes_are_named(tmp_path: Path, chat_server: ChatServer) -> None:
    with pytest.raises(ConfigError, match="has no var 'question'"):
        get_assert("apples", _context(tmp_path, chat_server, query_var="question"))
    with pytest.raises(ConfigError, match="needs rubric"):
        get_assert("apples", {"config": {}})
