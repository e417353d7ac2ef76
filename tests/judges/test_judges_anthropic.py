"""The ``anthropic/<model>`` judge against a real Messages API server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import ConfigError, JudgeError
from rubricjudge._judges._anthropic import AnthropicJudge
from rubricjudge._judges._base import JudgeConfig, JudgeRequest
from rubricjudge._judges._registry import get_judge
from tests.support.anthropic_server import AnthropicServer, Error, message, tool_use

KEY = "sk-ant-test-SECRET"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reason": {"type": "string"},
        "verdict": {"type": "string", "enum": ["MET", "UNMET"]},
    },
    "required": ["reason", "verdict"],
    "additionalProperties": False,
}
PREFIX = (
    "The submission:\n<submission-ab12>\nParis is the capital of France.\n</submission-ab12>\n\n"
)
TAIL = "Criterion: names the capital of France."


def request(**kw: Any) -> JudgeRequest:
    fields: dict[str, Any] = {
        "system": "You are a strict grader.",
        "user": PREFIX + TAIL,
        "schema": SCHEMA,
        "shared_prefix_chars": len(PREFIX),
    }
    fields.update(kw)
    return JudgeRequest(**fields)


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AnthropicServer]:
    monkeypatch.setenv("RUBRICJUDGE_CACHE_DIR", str(tmp_path / "cache"))
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    with AnthropicServer() as s:
        yield s


def raw(server: AnthropicServer, **options: Any) -> AnthropicJudge:
    """The backend alone: one attempt, no retries or cache."""
    cfg = JudgeConfig(base_url=server.base_url, api_key=KEY, timeout_s=5.0, **options)
    return AnthropicJudge("claude-test", cfg)


async def test_forced_tool_call_with_cached_prefix(server: AnthropicServer) -> None:
    usage = {
        "input_tokens": 7,
        "output_tokens": 12,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 1500,
    }
    server.script(tool_use({"reason": "It names Paris.", "verdict": "MET"}, usage=usage))
    judge = get_judge("anthropic/claude-test", base_url=server.base_url, api_key=KEY, cache=False)
    response = await judge.judge(request())

    assert response.data == {"reason": "It names Paris.", "verdict": "MET"}
    assert response.model == "claude-test" and response.reasoning is None
    assert response.usage is not None
    assert response.usage.prompt_tokens == 1507 and response.usage.completion_tokens == 12
    assert response.usage.cache_read_input_tokens == 1500
    assert response.usage.cache_creation_input_tokens == 0

    (sent,) = server.requests
    assert sent.path == "/v1/messages"
    auth = sent.headers.get("x-api-key") or sent.headers.get("authorization", "")
    assert KEY in auth and KEY not in str(sent.json)
    body = sent.json
    assert body["model"] == "claude-test" and body["max_tokens"] == 1024
    assert body["tools"] == [
        {
            "name": "judgment",
            "description": "Record your judgment. Call this exactly once.",
            "input_schema": SCHEMA,
        }
    ]
    assert body["tool_choice"] == {
        "type": "tool",
        "name": "judgment",
        "disable_parallel_tool_use": True,
    }
    assert body["system"] == [
        {"type": "text", "text": "You are a strict grader.", "cache_control": {"type": "ephemeral"}}
    ]
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": PREFIX, "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": TAIL},
            ],
        }
    ]
    assert "thinking" not in body


@pytest.mark.parametrize(
    ("shared", "cached"),
    [(0, False), (len(PREFIX + TAIL), True), (10_000, True)],
)
async def test_one_user_block_when_nothing_or_everything_is_shared(
    server: AnthropicServer, shared: int, cached: bool
) -> None:
    server.script(tool_use({"reason": "r", "verdict": "UNMET"}))
    await raw(server).judge(request(shared_prefix_chars=shared))
    (block,) = server.requests[0].json["messages"][0]["content"]
    assert block["text"] == PREFIX + TAIL
    assert ("cache_control" in block) is cached


async def test_thinking_is_passed_through_and_kept(server: AnthropicServer) -> None:
    server.script(
        tool_use(
            {"reason": "r", "verdict": "MET"}, name="criterion_verdict", thinking="Paris is named."
        )
    )
    judge = raw(server, reasoning={"budget_tokens": 2048}, extra_params={"top_k": 5})
    response = await judge.judge(request(schema_name="criterion verdict"))
    body = server.requests[0].json
    assert body["thinking"] == {"budget_tokens": 2048, "type": "enabled"}
    assert body["max_tokens"] > 2048
    assert body["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    assert body["tools"][0]["name"] == "criterion_verdict"
    assert body["top_k"] == 5
    assert response.reasoning == "Paris is named."


async def test_plain_json_text_is_accepted_without_a_tool_call(server: AnthropicServer) -> None:
    text = 'Here you go:\n```json\n{"reason": "no", "verdict": "UNMET"}\n```'
    server.script(message([{"type": "text", "text": text}]))
    response = await raw(server).judge(request())
    assert response.data == {"reason": "no", "verdict": "UNMET"}
    assert response.raw_text == text


@pytest.mark.parametrize(
    ("reply", "category"),
    [
        (Error(429, "rate_limit_error", "slow down", {"retry-after": "3"}), "rate_limit"),
        (Error(529, "overloaded_error", "overloaded"), "server"),
        (Error(500), "server"),
        (Error(401, "authentication_error", "bad key"), "auth"),
        (Error(400, "invalid_request_error", "bad schema"), "bad_request"),
        (message([{"type": "text", "text": "I will not."}], stop_reason="refusal"), "refusal"),
        (message([{"type": "text", "text": '{"reason": "cut'}], stop_reason="max_tokens"), "parse"),
    ],
)
async def test_failures_map_to_categories(
    server: AnthropicServer, reply: Any, category: str
) -> None:
    server.script(reply)
    with pytest.raises(JudgeError) as info:
        await raw(server).judge(request())
    assert info.value.category == category
    if category == "parse":
        assert "cut off by max_tokens" in str(info.value)


async def test_connection_refused_is_a_connection_error(server: AnthropicServer) -> None:
    cfg = JudgeConfig(base_url="http://127.0.0.1:9", api_key=KEY, timeout_s=2.0)
    with pytest.raises(JudgeError) as info:
        await AnthropicJudge("claude-test", cfg).judge(request())
    assert info.value.category == "connection"


async def test_the_layer_retries_after_retry_after(server: AnthropicServer) -> None:
    server.script(
        Error(429, "rate_limit_error", "slow down", {"retry-after": "0"}),
        tool_use({"reason": "r", "verdict": "MET"}),
    )
    judge = get_judge("anthropic/claude-test", base_url=server.base_url, api_key=KEY, cache=False)
    response = await judge.judge(request())
    assert response.attempts == 2 and response.data["verdict"] == "MET"
    assert len(server.requests) == 2


def test_a_missing_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        AnthropicJudge("claude-test", JudgeConfig())
    with pytest.raises(ConfigError, match="names no model"):
        get_judge("anthropic/", api_key=KEY)
