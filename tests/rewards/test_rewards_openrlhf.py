"""POST /get_reward: OpenRLHF's remote reward protocol, over real HTTP on both sides.

The judge is ``openai/...`` against the scripted chat server; the trainer side is
OpenRLHF's own client (``SingleTurnAgentExecutor._fetch_rewards_via_http``) where
OpenRLHF is installed, and httpx otherwise.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._rewards._text import response_of
from rubricjudge._server._app import create_app
from rubricjudge._server._logs import RedactToken, redact
from rubricjudge._server._settings import ServerSettings
from rubricjudge._server._sources import DirectorySource, FileSource
from tests.support.chat_server import ChatServer
from tests.support.reward_helpers import fruit_reply, keyword_judge, write_rubric
from tests.support.served import TOKEN, Served

PROMPT = "<|im_start|>user\nName some fruit.<|im_end|>\n<|im_start|>assistant\n"
ANSWERS = ["apples and bananas", "an apple", "bananas only", "nothing", "apple, banana", "pears"]
EXPECTED = [1.0, 0.5, 0.5, 0.0, 1.0, 0.0]


def _openrlhf_client() -> Any:
    if os.environ.get("RUBRICJUDGE_REQUIRE_RL"):
        from openrlhf.utils.agent import SingleTurnAgentExecutor
    else:
        agent = pytest.importorskip("openrlhf.utils.agent")
        SingleTurnAgentExecutor = agent.SingleTurnAgentExecutor
    return SingleTurnAgentExecutor


def _settings(source: Any, grader: Any, **kw: Any) -> ServerSettings:
    return ServerSettings(source=source, grader=grader, token=TOKEN, max_batch=64, **kw)


@pytest.fixture
def http_served(chat_server: ChatServer, tmp_path: Path) -> Iterator[Served]:
    chat_server.handler = fruit_reply
    grader = CriterionGrader(
        judge="openai/test",
        judge_options={"base_url": chat_server.base_url, "api_key": "x", "max_retries": 0},
    )
    settings = _settings(FileSource(write_rubric(tmp_path / "r")), grader, default_rubric="fruit")
    with Served(create_app(settings)) as served:
        yield served


def _fake_served(tmp_path: Path, **kw: Any) -> Served:
    grader = CriterionGrader(judge=FakeJudge(default=keyword_judge))
    source = DirectorySource(write_rubric(tmp_path / "rubrics").parent)
    return Served(create_app(_settings(source, grader, **kw)))


def test_openrlhf_client_reads_rewards_in_order(http_served: Served) -> None:
    executor_cls = _openrlhf_client()
    url = f"{http_served.url}/get_reward?token={TOKEN}"  # OpenRLHF's client sends no headers
    executor = executor_cls(remote_rm_url=[url])
    queries = [PROMPT + a + "<|im_end|>" for a in ANSWERS]
    replies = asyncio.run(
        executor._fetch_rewards_via_http(queries, [PROMPT] * len(ANSWERS), [None] * len(ANSWERS))
    )
    assert len(replies) == 1
    reply = replies[0]
    assert reply["rewards"] == EXPECTED and reply["scores"] == EXPECTED
    assert reply["extra_logs"]["rubric_failed"] == [0.0] * len(ANSWERS)
    assert reply["failed"] == [False] * len(ANSWERS)


def test_reply_carries_usage_and_the_cache_makes_a_repeat_free(
    http_served: Served, chat_server: ChatServer
) -> None:
    body = {"query": [PROMPT + a for a in ANSWERS], "prompts": [PROMPT] * len(ANSWERS)}
    with http_served.client() as client:
        first = client.post("/get_reward", json=body).json()
        asked = len(chat_server.chat_requests)
        second = client.post("/get_reward", json=body).json()
    n_calls = 2 * len(ANSWERS)
    assert asked == n_calls and len(chat_server.chat_requests) == n_calls  # no call repeated
    assert first["usage"]["judge_calls"] == n_calls and first["usage"]["cached_calls"] == 0
    assert first["usage"]["prompt_tokens"] == 40 * n_calls
    assert first["usage"]["total_tokens"] == 46 * n_calls
    assert second["usage"]["cached_calls"] == n_calls
    assert second["rewards"] == first["rewards"] == EXPECTED
    assert first["rubric"] == "fruit" and first["version"] == "1.0.0"


def test_the_judge_sees_the_response_and_the_prompt_apart(
    http_served: Served, chat_server: ChatServer
) -> None:
    body = {"query": [PROMPT + "an apple<|im_end|>"], "prompts": [PROMPT], "labels": [31415]}
    with http_served.client() as client:
        assert client.post("/get_reward", json=body).json()["rewards"] == [0.5]
    user = chat_server.chat_requests[0].json["messages"][-1]["content"]
    assert "\nan apple\n</submission" in user  # the response only, end token dropped
    assert "Name some fruit." in user.split("The submission:")[0]  # the prompt as the request
    assert "31415" in user  # the label (a number in this dataset) as the reference answer


@pytest.mark.parametrize(
    ("policy", "rewards"),
    [("skip", [1.0, None, 0.5]), ("neutral", [1.0, 0.25, 0.5])],
)
def test_failure_policies_flag_each_failed_rollout(
    tmp_path: Path, policy: str, rewards: list[float | None]
) -> None:
    body = {"query": ["apple banana", "FAIL", "banana"], "rubric": "fruit"}
    with _fake_served(tmp_path, on_failure=policy, neutral_value=0.25) as served:
        with served.client() as client:
            reply = client.post("/get_reward", json=body).json()
    assert reply["rewards"] == rewards
    assert reply["failed"] == [False, True, False]
    assert reply["extra_logs"]["rubric_failed"] == [0.0, 1.0, 0.0]
    assert "scripted outage" in reply["errors"][1] and reply["errors"][0] is None


def test_error_policy_and_whole_batch_failure_are_http_errors(tmp_path: Path) -> None:
    with _fake_served(tmp_path) as served, served.client() as client:  # on_failure="error"
        r = client.post("/get_reward?rubric=fruit", json={"query": ["apple", "FAIL now"]})
        assert r.status_code == 502
        assert "1 of 2 rollouts could not be scored" in r.json()["error"]
        assert r.json()["detail"]["failed"] == [False, True]
    with _fake_served(tmp_path, on_failure="neutral") as served, served.client() as client:
        r = client.post("/get_reward?rubric=fruit", json={"query": ["FAIL", "FAIL too"]})
        assert r.status_code == 502  # a judge that is down stops training, whatever the policy
        assert "none of the 2 rollouts could be scored" in r.json()["error"]


def test_a_query_without_its_prompt_fails_that_rollout_only(tmp_path: Path) -> None:
    body = {"query": ["Q: fruit? apple", "something else"], "prompts": ["Q: fruit? ", "Q: x? "]}
    with _fake_served(tmp_path, on_failure="skip") as served, served.client() as client:
        reply = client.post("/get_reward?rubric=fruit", json=body).json()
    assert reply["rewards"] == [0.5, None]
    assert "query[1]: the query does not contain its prompt" in reply["errors"][1]


def test_auth_rubric_choice_and_bad_bodies(tmp_path: Path) -> None:
    body = {"query": ["apple"]}
    with _fake_served(tmp_path) as served:
        with served.client(token=None) as anon:
            assert anon.post("/get_reward?rubric=fruit", json=body).status_code == 401
            assert anon.post("/get_reward?rubric=fruit&token=wrong-token-000000", json=body)
            r = anon.post(f"/get_reward?rubric=fruit&token={TOKEN}", json=body)
            assert r.status_code == 200 and r.json()["rewards"] == [0.5]
            assert (
                anon.post(f"/score?token={TOKEN}", json={}).status_code == 401
            )  # URL: reward only
        with served.client() as client:
            r = client.post("/get_reward", json=body)
            assert r.status_code == 422 and "?rubric=ID" in r.json()["error"]
            assert client.post("/get_reward?rubric=nope", json=body).status_code == 404
            r = client.post("/get_reward?rubric=fruit", json={"query": ["a"], "prompts": []})
            assert r.status_code == 422 and "prompts has 0 entries for 1 queries" in r.text
            r = client.post("/get_reward?rubric=fruit", json={"query": ["a"] * 65})
            assert r.status_code == 422 and "--max-batch" in r.json()["error"]
            assert client.post("/get_reward", json={**body, "rubric": "fruit"}).status_code == 200
            # a NaN or Infinity label (JSON readers accept them) is no reference answer
            for bad in ("NaN", "Infinity", "-Infinity"):
                raw = '{"query": ["apple"], "labels": [' + bad + "]}"
                r = client.post(
                    "/get_reward?rubric=fruit",
                    content=raw,
                    headers={"content-type": "application/json"},
                )
                assert r.status_code == 422, (bad, r.text)
                assert "labels[0]" in r.text and "finite number" in r.text


def test_tokens_in_urls_never_reach_the_access_log() -> None:
    assert redact("/get_reward?token=s3cret&rubric=x") == "/get_reward?token=***&rubric=x"
    assert redact("/get_reward?rubric=x&token=s3cret") == "/get_reward?rubric=x&token=***"
    record = logging.LogRecord(
        "uvicorn.access", 20, "", 0, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "POST", "/get_reward?token=s3cret", "1.1", 200), None,
    )  # fmt: skip
    assert RedactToken().filter(record) and "s3cret" not in record.getMessage()


@pytest.mark.parametrize(
    ("query", "prompt", "response"),
    [
        ("PROMPT answer", "PROMPT ", "answer"),
        ("<s>PROMPT answer</s>", "PROMPT ", "answer"),  # a start token added in decoding
        ("MPT answer<|im_end|>\n", "PROMPT " * 50 + "LAST PROMPT ", None),  # cut from the left
        ("answer", None, "answer"),
    ],
)
def test_response_of(query: str, prompt: str | None, response: str | None) -> None:
    if response is None:
        with pytest.raises(ValueError, match="does not contain its prompt"):
            response_of(query, prompt)
    else:
        assert response_of(query, prompt) == response


def test_cli_serve_rubric_logs_each_batch_and_hides_the_token(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    import signal
    import socket
    import subprocess
    import sys
    import time

    chat_server.handler = fruit_reply
    rubric = write_rubric(tmp_path)
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "rubricjudge._cli.main", "serve", "--port", str(port)]
    cmd += ["--rubric", str(rubric), "--token-file", str(token_file), "--judge", "openai/test"]
    cmd += ["--base-url", chat_server.base_url, "--no-cache", "--judge-concurrency", "4"]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as from a terminal, even when pytest was started in the background
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                httpx.get(url + "/health", timeout=1)
                break
            except httpx.TransportError:
                if proc.poll() is not None:
                    break
                time.sleep(0.05)
        body = {"query": [PROMPT + "apple", PROMPT + "banana"], "prompts": [PROMPT, PROMPT]}
        r = httpx.post(f"{url}/get_reward?token={TOKEN}", json=body, timeout=30)
        assert r.status_code == 200, r.text
        assert r.json()["rewards"] == [0.5, 0.5] and r.json()["rubric"] == "fruit"
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert "/get_reward fruit: 2 rollouts, 0 failed, 0 judge errors; 4 judge calls" in err
    assert "token=***" in out and TOKEN not in out + err


def test_cli_serve_flag_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rubricjudge._cli.main import main

    rubric = write_rubric(tmp_path)
    assert main(["serve", "--rubric", str(tmp_path / "missing.yaml"), "--no-auth"]) == 1
    assert "--rubric" in capsys.readouterr().err
    (tmp_path / "bad name.yaml").write_text(rubric.read_text())
    assert main(["serve", "--rubric", str(tmp_path / "bad name.yaml"), "--no-auth"]) == 1
    assert "rename the file" in capsys.readouterr().err
    assert main(["serve", "--rubric", str(rubric), "--no-auth", "--judge-concurrency", "0"]) == 1
    assert "--judge-concurrency 0" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--rubric", str(rubric), "--no-auth", "--on-failure", "zero"])
    assert exit_.value.code == 2
