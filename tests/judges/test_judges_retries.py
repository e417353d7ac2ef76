"""Retries, Retry-After, timeouts, dropped connections and parse re-asks, over real HTTP."""

from __future__ import annotations

import email.utils
import time

import pytest

from rubricjudge._errors import JudgeError
from rubricjudge._judges._retry import Backoff, parse_retry_after
from tests.support.chat_server import ChatServer, Reply
from tests.support.judge_helpers import openai_judge, request, waits


async def test_429_retry_after_is_honoured(chat_server: ChatServer) -> None:
    chat_server.script(Reply.rate_limited(0.03), Reply.rate_limited(0.02))
    judge = openai_judge(chat_server)
    response = await judge.judge(request())
    assert response.data["verdict"] == "MET"
    assert response.attempts == 3
    assert waits(judge) == [0.03, 0.02]  # exactly what the server asked, no jitter
    assert len(chat_server.chat_requests) == 3


async def test_retry_after_as_http_date(chat_server: ChatServer) -> None:
    when = email.utils.formatdate(time.time() + 1, usegmt=True)
    chat_server.script(Reply.rate_limited(when))
    judge = openai_judge(chat_server)
    await judge.judge(request())
    (wait,) = waits(judge)
    assert 0.0 <= wait <= 1.0


async def test_500_then_success(chat_server: ChatServer) -> None:
    chat_server.script(Reply.server_error(500), Reply.server_error(503))
    judge = openai_judge(chat_server)
    judge.backoff = Backoff(base_s=0.01, cap_s=0.02)
    response = await judge.judge(request())
    assert response.data["verdict"] == "MET" and response.attempts == 3
    assert len(waits(judge)) == 2
    assert all(0.0 <= w <= 0.02 for w in waits(judge))


async def test_rate_limits_exhaust_into_a_typed_error(chat_server: ChatServer) -> None:
    chat_server.handler = lambda body: Reply.rate_limited(0.001)
    judge = openai_judge(chat_server, max_retries=2)
    with pytest.raises(JudgeError) as info:
        await judge.judge(request())
    assert info.value.category == "rate_limit"
    assert info.value.attempts == 3
    assert len(chat_server.chat_requests) == 3


async def test_hanging_server_times_out(chat_server: ChatServer) -> None:
    chat_server.handler = lambda body: Reply.hang_up()
    judge = openai_judge(chat_server, timeout_s=0.2, max_retries=1)
    judge.backoff = Backoff(base_s=0.001)
    with pytest.raises(JudgeError) as info:
        await judge.judge(request())
    assert info.value.category == "timeout" and info.value.attempts == 2


async def test_timeout_then_success(chat_server: ChatServer) -> None:
    chat_server.script(Reply.hang_up())
    judge = openai_judge(chat_server, timeout_s=0.2)
    judge.backoff = Backoff(base_s=0.001)
    response = await judge.judge(request())
    assert response.data["verdict"] == "MET" and response.attempts == 2


async def test_dropped_connection_is_retried(chat_server: ChatServer) -> None:
    chat_server.script(Reply.dropped(), Reply.truncated_body())
    judge = openai_judge(chat_server)
    judge.backoff = Backoff(base_s=0.001)
    response = await judge.judge(request())
    assert response.attempts == 3


async def test_dropped_connections_exhaust_into_connection_error(chat_server: ChatServer) -> None:
    chat_server.handler = lambda body: Reply.dropped()
    judge = openai_judge(chat_server, max_retries=1)
    judge.backoff = Backoff(base_s=0.001)
    with pytest.raises(JudgeError) as info:
        await judge.judge(request())
    assert info.value.category == "connection" and info.value.attempts == 2


async def test_unparseable_replies_are_reasked_then_typed(chat_server: ChatServer) -> None:
    chat_server.handler = lambda body: Reply.text("I think it is met, mostly.")
    judge = openai_judge(chat_server, max_parse_retries=2)
    with pytest.raises(JudgeError) as info:
        await judge.judge(request())
    assert info.value.category == "parse" and info.value.attempts == 3
    assert info.value.raw_text == "I think it is met, mostly."
    sent = chat_server.chat_requests
    assert len(sent) == 3
    assert "could not be read as one JSON object" in sent[1].json["messages"][1]["content"]
    assert waits(judge) == []  # parse re-asks do not back off


async def test_parse_retries_are_bounded_apart_from_transient_ones(
    chat_server: ChatServer,
) -> None:
    chat_server.script(
        Reply.server_error(),
        Reply.text("garbage"),
        Reply.rate_limited(0.001),
        Reply.text('{"verdict": "UN'),  # truncated JSON
    )
    judge = openai_judge(chat_server, max_retries=2, max_parse_retries=2)
    judge.backoff = Backoff(base_s=0.001)
    response = await judge.judge(request())
    assert response.attempts == 5 and response.data["verdict"] == "MET"


async def test_truncated_content_names_max_tokens(chat_server: ChatServer) -> None:
    chat_server.script(Reply.text('{"verdict": "ME', finish_reason="length"))
    judge = openai_judge(chat_server, max_parse_retries=0)
    with pytest.raises(JudgeError, match="max_tokens") as info:
        await judge.judge(request())
    assert info.value.category == "parse"


async def test_malformed_http_body_is_a_parse_failure(chat_server: ChatServer) -> None:
    chat_server.handler = lambda body: Reply.malformed_body()
    judge = openai_judge(chat_server, max_parse_retries=1)
    with pytest.raises(JudgeError) as info:
        await judge.judge(request())
    assert info.value.category == "parse" and info.value.attempts == 2


async def test_fenced_and_chatty_replies_are_repaired(chat_server: ChatServer) -> None:
    chat_server.script(
        Reply.text('Sure!\n```json\n{"verdict": "UNMET", "reason": "x",}\n```\nHope it helps.')
    )
    response = await openai_judge(chat_server).judge(request())
    assert response.data == {"verdict": "UNMET", "reason": "x"} and response.attempts == 1


def test_backoff_is_full_jitter_under_a_growing_ceiling() -> None:
    import random

    rng = random.Random(1)
    backoff = Backoff(base_s=1.0, cap_s=8.0)
    error = JudgeError("x", category="server")
    for attempt, ceiling in [(0, 1.0), (1, 2.0), (2, 4.0), (3, 8.0), (6, 8.0)]:
        draws = [backoff.delay(attempt, error, rng) for _ in range(200)]
        assert all(0.0 <= d <= ceiling for d in draws)
        assert max(draws) > ceiling * 0.8  # spread over the whole range


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    past = email.utils.formatdate(time.time() - 60, usegmt=True)
    assert parse_retry_after({"retry-after": past}) == 0.0
