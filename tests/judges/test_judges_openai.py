"""The openai/<model> backend against a real chat-completions server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import sys

import pytest

from rubricjudge._errors import ConfigError, JudgeError
from rubricjudge._judges._registry import get_judge, judge_backends
from tests.support.chat_server import ChatServer, Reply
from tests.support.judge_helpers import SCHEMA, SECRET, openai_judge, request


async def test_default_reply_is_valid_for_the_schema(chat_server: ChatServer) -> None:
    judge = openai_judge(chat_server)
    response = await judge.judge(request())
    assert response.data["verdict"] == "MET"
    assert response.usage is not None and response.usage.total_tokens == 15
    assert response.attempts == 1 and not response.cached
    assert response.model == "test-model"
    assert judge.name == "openai/test-model"
    assert "openai" in judge_backends()


async def test_request_carries_prompts_schema_and_key(chat_server: ChatServer) -> None:
    chat_server.script(Reply.json({"verdict": "UNMET", "reason": "no"}))
    judge = openai_judge(chat_server)
    response = await judge.judge(request("Submission: <x>"))
    assert response.data == {"verdict": "UNMET", "reason": "no"}
    (sent,) = chat_server.chat_requests
    assert sent.headers["authorization"] == f"Bearer {SECRET}"
    assert sent.json["messages"] == [
        {"role": "system", "content": "You are a strict grader."},
        {"role": "user", "content": "Submission: <x>"},
    ]
    fmt = sent.json["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"] == {"name": "judgment", "schema": SCHEMA, "strict": True}


async def test_loose_schema_is_not_sent_as_strict(chat_server: ChatServer) -> None:
    loose = {"type": "object", "properties": {"verdict": {"type": "string"}}}
    judge = openai_judge(chat_server)
    await judge.judge(request(schema_name="v").__class__(system="s", user="u", schema=loose))
    assert chat_server.chat_requests[0].json["response_format"]["json_schema"]["strict"] is False


async def test_sampling_params_headers_and_reasoning_pass_through(chat_server: ChatServer) -> None:
    judge = openai_judge(
        chat_server,
        temperature=0.3,
        seed=7,
        max_tokens=99,
        extra_headers={"X-Trace": "abc"},
        extra_params={"top_p": 0.5, "min_p": 0.1},
        reasoning={"effort": "low"},
    )
    await judge.judge(request())
    sent = chat_server.chat_requests[0]
    body = sent.json
    assert (body["temperature"], body["seed"], body["max_tokens"]) == (0.3, 7, 99)
    assert (body["top_p"], body["min_p"]) == (0.5, 0.1)
    assert body["reasoning_effort"] == "low"
    assert sent.headers["x-trace"] == "abc"


async def test_request_values_override_the_config(chat_server: ChatServer) -> None:
    judge = openai_judge(chat_server, temperature=0.9, max_tokens=10)
    await judge.judge(request(temperature=0.0, max_tokens=20, seed=3))
    body = chat_server.chat_requests[0].json
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.0, 20, 3)


async def test_reasoning_trace_is_kept_apart(chat_server: ChatServer) -> None:
    chat_server.script(
        Reply.json({"verdict": "MET", "reason": "short"}, reasoning="long chain of thought"),
        Reply.text('<think>pondering</think>\n{"verdict": "UNMET", "reason": "r"}'),
    )
    judge = openai_judge(chat_server)
    first = await judge.judge(request())
    assert first.reasoning == "long chain of thought" and first.data["reason"] == "short"
    second = await judge.judge(request("other"))
    assert second.reasoning == "pondering" and second.data["verdict"] == "UNMET"


async def test_json_schema_rejection_falls_back_and_is_remembered(
    chat_server: ChatServer,
) -> None:
    def llama_cpp(body: dict[str, object]) -> Reply:
        fmt = body["response_format"]
        assert isinstance(fmt, dict)
        if fmt["type"] == "json_schema":
            return Reply.schema_unsupported()
        return Reply.json({"verdict": "CANNOT_ASSESS", "reason": "fallback"})

    chat_server.handler = llama_cpp
    judge = openai_judge(chat_server)
    first = await judge.judge(request())
    assert first.data["verdict"] == "CANNOT_ASSESS"
    kinds = [r.json["response_format"]["type"] for r in chat_server.chat_requests]
    assert kinds == ["json_schema", "json_object"]
    assert chat_server.chat_requests[1].json["response_format"]["schema"] == SCHEMA
    # a new judge at the same server goes straight to json_object
    await openai_judge(chat_server, model="other").judge(request("again"))
    assert chat_server.chat_requests[2].json["response_format"]["type"] == "json_object"


@pytest.mark.parametrize(
    ("reply", "category"),
    [
        (Reply.error(401, "bad key"), "auth"),
        (Reply.error(403, "forbidden"), "auth"),
        (Reply.error(400, "messages must not be empty"), "bad_request"),
        (Reply.error(404, "no such model"), "bad_request"),
        (Reply(content=None, refusal="I will not grade this"), "refusal"),
    ],
)
async def test_permanent_failures_are_typed_and_not_retried(
    chat_server: ChatServer, reply: Reply, category: str
) -> None:
    chat_server.script(reply)
    judge = openai_judge(chat_server)
    with pytest.raises(JudgeError) as info:
        await judge.judge(request())
    assert info.value.category == category
    assert info.value.attempts == 1
    assert len(chat_server.chat_requests) == 1
    assert SECRET not in str(info.value)


def test_missing_key_without_base_url_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        get_judge("openai/gpt-4.1-mini")
    with pytest.raises(ConfigError, match="names no model"):
        get_judge("openai/", api_key="k")


async def test_local_server_needs_no_key(
    chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", chat_server.base_url)
    judge = get_judge("openai/local-model", cache=False)
    response = await judge.judge(request())
    assert response.data["verdict"] == "MET"
    assert chat_server.chat_requests[0].json["model"] == "local-model"


def test_sequential_event_loops_reuse_one_judge(chat_server: ChatServer) -> None:
    judge = openai_judge(chat_server, concurrency=2)
    for i in range(3):  # what the *_sync wrappers do: a fresh loop each time
        response = asyncio.run(judge.judge(request(f"q{i}")))
        assert response.data["verdict"] == "MET"
    assert len(chat_server.chat_requests) == 3


def test_import_rubricjudge_loads_no_http_client_or_price_table() -> None:
    import subprocess

    names = ("rubricjudge._judges._http", "openai", "aiohttp", "genai_prices")
    code = f"import sys, rubricjudge; print(*[n in sys.modules for n in {names!r}])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"] * len(names)


async def test_org_and_project_headers_come_from_the_environment(
    chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-2")
    await openai_judge(chat_server).judge(request())
    sent = chat_server.chat_requests[0].headers
    assert (sent["openai-organization"], sent["openai-project"]) == ("org-1", "proj-2")
    assert sent["content-type"] == "application/json"
