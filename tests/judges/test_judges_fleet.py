"""Endpoint fleets: one ``openai/`` judge over several real chat servers on 127.0.0.1.

Routing to the least-loaded healthy server, failover on connection errors and 5xx
inside one attempt, back-off and probing of a failed server, per-server numbers,
and a server that dies in the middle of an ``evaluate`` run.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricjudge._cli.main import main
from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._errors import ConfigError, JudgeError, UsageError
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges import _fleet
from rubricjudge._judges._fake import fake_reply_for_schema
from rubricjudge._judges._fleet import parse_base_urls
from rubricjudge._judges._registry import get_judge
from rubricjudge._model._rubric import Criterion, Rubric
from rubricjudge._runs._evaluate import evaluate
from rubricjudge._runs._store import RunStore
from rubricjudge.judges import EndpointStats
from rubricjudge.runs import RunSummary
from tests.support.chat_server import ChatServer, Reply, schema_of
from tests.support.judge_helpers import SleepLog, request


@pytest.fixture(autouse=True)
def _fresh_health() -> Iterator[None]:
    # health is per URL for the whole process: a port reused from an earlier test's
    # dead server must not start out resting
    _fleet._HEALTH.clear()
    yield
    _fleet._HEALTH.clear()


@pytest.fixture
def servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[ChatServer]]:
    """Three chat servers, each on its own port."""
    monkeypatch.setenv("RUBRICJUDGE_CACHE_DIR", str(tmp_path / "judge-cache"))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    started = [ChatServer().start() for _ in range(3)]
    yield started
    for s in started:
        s.close()


def _dead_url() -> str:
    """The URL of a port nothing listens on any more."""
    server = ChatServer().start()
    url = server.base_url
    server.close()
    return url


def _judge(urls: list[str], **options: Any) -> Any:
    opts: dict[str, Any] = {"base_url": urls, "cache": False, "max_retries": 0}
    opts.update(options)
    return get_judge("openai/test", **opts)


def _slow(delay: float) -> Any:
    return lambda body: Reply.json(fake_reply_for_schema(schema_of(body) or {}), delay=delay)


# -- the list of URLs ------------------------------------------------------------


def test_a_list_a_comma_string_and_the_environment_make_the_same_fleet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a, b = "http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1/"
    assert parse_base_urls([a, b], "base_url") == (a, b.rstrip("/"))
    assert parse_base_urls(f" {a} , {b}", "base_url") == (a, b.rstrip("/"))
    monkeypatch.setenv("OPENAI_BASE_URL", f"{a},{b}")
    judge = get_judge("openai/test", cache=False)
    assert judge.inner.base_urls == (a, b.rstrip("/"))
    assert len(judge.inner.fleet) == 2


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("http://a:1/v1,,http://b:1/v1", "entry 2 is empty"),
        ("http://a:1/v1,", "entry 2 is empty"),
        ("http://a:1/v1,ftp://b/v1", "is not an http(s) URL"),
        ("http://a:1/v1,http://a:1/v1/", "lists 'http://a:1/v1' twice"),
    ],
)
def test_a_malformed_list_is_refused_naming_where_it_came_from(value: str, says: str) -> None:
    with pytest.raises(ConfigError, match="base_url") as e:
        get_judge("openai/test", base_url=value)
    assert says in str(e.value)


def test_other_backends_refuse_a_fleet() -> None:
    with pytest.raises(ConfigError, match="openai/ judges"):
        get_judge("anthropic/claude-x", base_url="http://a:1/v1,http://b:1/v1", api_key="k")


# -- routing, failover, health ------------------------------------------------------


async def test_calls_spread_over_the_least_loaded_servers(servers: list[ChatServer]) -> None:
    for s in servers:
        s.handler = _slow(0.05)
    judge = _judge([s.base_url for s in servers])
    replies = await asyncio.gather(*(judge.judge(request()) for _ in range(30)))
    assert all(r.attempts == 1 for r in replies)
    counts = [len(s.chat_requests) for s in servers]
    assert sum(counts) == 30
    assert min(counts) >= 8, counts  # 10 each, give or take the order of arrival
    stats = judge.endpoint_stats()
    assert list(stats) == [s.base_url for s in servers]
    for s in servers:
        st = stats[s.base_url]
        assert (st.calls, st.errors, st.healthy) == (len(s.chat_requests), 0, True)
        assert st.latency_s["p50"] >= 0.05 and st.latency_s["max"] >= st.latency_s["p90"]
    # the servers' default limits add up: 3 x 32 calls may be in flight, not 32
    assert judge.limits.gate._limit == 96


async def test_sequential_calls_take_turns(servers: list[ChatServer]) -> None:
    judge = _judge([s.base_url for s in servers])
    for _ in range(6):
        await judge.judge(request())
    assert [len(s.chat_requests) for s in servers] == [2, 2, 2]


async def test_a_refused_connection_fails_over_within_one_attempt(
    servers: list[ChatServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_fleet, "BACKOFF_START_S", 60.0)  # no probe during the test
    dead = _dead_url()
    judge = _judge([dead, servers[0].base_url])  # max_retries=0: a retry would fail the call
    replies = [await judge.judge(request()) for _ in range(5)]
    assert [r.attempts for r in replies] == [1] * 5
    stats = judge.endpoint_stats()
    # tried once, then left alone for its back-off while the live server answers
    assert stats[dead] == EndpointStats(calls=1, errors=1, healthy=False)
    assert (stats[servers[0].base_url].calls, stats[servers[0].base_url].errors) == (5, 0)


async def test_a_5xx_fails_over_and_a_4xx_does_not(servers: list[ChatServer]) -> None:
    a, b = servers[0], servers[1]
    a.handler = lambda body: Reply.server_error(503)
    judge = _judge([a.base_url, b.base_url])
    reply = await judge.judge(request())
    assert reply.attempts == 1 and len(a.chat_requests) == 1 and len(b.chat_requests) == 1
    b.handler = lambda body: Reply.error(400, "bad request")
    with pytest.raises(JudgeError) as e:
        await judge.judge(request())
    assert e.value.category == "bad_request" and len(a.chat_requests) == 1  # a still resting


async def test_a_failed_server_rests_then_is_probed_back(
    servers: list[ChatServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = servers[0], servers[1]
    a.script(Reply.server_error(502))
    judge = _judge([a.base_url, b.base_url])
    for _ in range(4):
        await judge.judge(request())
    assert (len(a.chat_requests), len(b.chat_requests)) == (1, 4)
    assert not judge.endpoint_stats()[a.base_url].healthy
    await asyncio.sleep(1.05)  # its first rest is 1 s
    await judge.judge(request())  # the probe: a has waited longest and is idle
    assert len(a.chat_requests) == 2
    stats = judge.endpoint_stats()[a.base_url]
    assert (stats.calls, stats.errors, stats.healthy) == (2, 1, True)


async def test_every_server_down_is_a_judge_error_after_the_usual_retries(
    servers: list[ChatServer],
) -> None:
    dead = [_dead_url(), _dead_url()]
    judge = _judge(dead, max_retries=2)
    with pytest.raises(JudgeError) as e:
        await judge.judge(request())
    assert e.value.category == "connection" and e.value.attempts == 3
    assert "none of the 2 endpoints answered" in str(e.value)
    stats = judge.endpoint_stats()
    # the first attempt tries both; later ones the one whose rest ends first
    assert sum(s.calls for s in stats.values()) == 4
    assert all(s.errors == s.calls and not s.healthy for s in stats.values())


async def test_a_fleet_of_one_behaves_as_one_server(servers: list[ChatServer]) -> None:
    a = servers[0]
    a.script(Reply.server_error(503), Reply.server_error(503))
    judge = _judge([a.base_url], max_retries=2)
    reply = await judge.judge(request())  # tried again at once, though it just failed
    assert reply.attempts == 3 and len(a.chat_requests) == 3


# -- a server dies in the middle of a run ---------------------------------------------


def _rubric() -> Rubric:
    return Rubric(
        [
            Criterion(name="correct", requirement="The answer is correct", weight=2),
            Criterion(name="brief", requirement="The answer is brief", weight=1),
        ]
    )


class _Dying:
    """A server's handler that answers slowly, then, once killed, drops every request."""

    def __init__(self, server: ChatServer, after: int) -> None:
        self.server = server
        self.after = after
        self.answered = 0
        self.dead = threading.Event()
        self._lock = threading.Lock()
        server.handler = self

    def __call__(self, body: Any) -> Reply:
        time.sleep(0.01)
        with self._lock:
            if not self.dead.is_set() and self.answered >= self.after:
                self.dead.set()
                threading.Thread(target=self.server.close, daemon=True).start()
            if self.dead.is_set():
                return Reply.dropped()  # in flight as it died: the connection is cut
            self.answered += 1
        return Reply.json(fake_reply_for_schema(schema_of(body) or {}))


async def test_a_server_dying_mid_run_loses_and_repeats_no_judgment(
    servers: list[ChatServer], tmp_path: Path
) -> None:
    for s in servers[:2]:
        s.handler = _slow(0.01)
    dying = _Dying(servers[2], after=10)
    urls = [s.base_url for s in servers]
    items = [DataItem(submission=f"answer {i}", id=f"item-{i}") for i in range(40)]
    dataset = RubricDataset(prompt="Say something", rubric=_rubric(), items=items)
    grader = CriterionGrader(
        "openai/test", judge_options={"base_url": urls, "cache": False, "max_retries": 0}
    )
    result = await evaluate(dataset, grader, run_dir=tmp_path / "run", concurrency=12)
    summary = result.summary
    assert dying.dead.is_set()
    # every item graded in full although retries were off: failovers cost no attempt
    assert summary.items_graded == 40 and summary.items_with_judge_errors == 0
    assert summary.judge_calls == 80 and not summary.errors
    store = RunStore(tmp_path / "run")
    try:
        stored = [json.loads(r) for *_, r in store.iter_judgments()]
    finally:
        store.close()
    assert len(stored) == 80 and {d["attempts"] for d in stored} == {1}
    stats = summary.endpoints
    assert list(stats) == urls
    live, dead = [stats[u] for u in urls[:2]], stats[urls[2]]
    for server, st in zip(servers[:2], live, strict=True):
        # both live servers took calls (how evenly depends on timing on a busy machine)
        assert st.errors == 0 and st.calls == len(server.chat_requests) > 0
    assert dead.calls - dead.errors == dying.answered == 10 and dead.errors >= 1
    assert not dead.healthy
    # each judgment was answered by exactly one server
    assert sum(s.calls - s.errors for s in stats.values()) == 80
    text = summary.to_text()
    assert f"{urls[2]}: {dead.calls} sent, {dead.errors} failed" in text
    assert "[down at the end]" in text
    again = RunSummary.model_validate_json(summary.model_dump_json())
    assert again.endpoints == stats


# -- the command line -----------------------------------------------------------------


def test_cli_base_url_list_makes_a_fleet(
    servers: list[ChatServer], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = servers[0], servers[1]
    args = ["evaluate", "example:llm_rubric_microsoft", "--judge", "openai/test", "--json"]
    assert main([*args, "--base-url", f"{a.base_url},{b.base_url}", "--no-cache"]) == 0
    summary = json.loads(capsys.readouterr().out)
    ends = summary["endpoints"]
    assert set(ends) == {a.base_url, b.base_url}
    assert ends[a.base_url]["calls"] == len(a.chat_requests) > 0
    assert ends[b.base_url]["calls"] == len(b.chat_requests) > 0
    assert ends[a.base_url]["calls"] + ends[b.base_url]["calls"] == summary["judge_calls"]
    assert main(args[:-1] + ["--base-url", f"{a.base_url},{b.base_url}", "--no-cache"]) == 0
    assert "endpoints (requests sent, failed" in capsys.readouterr().out


def test_cli_single_base_url_reports_no_endpoints(
    servers: list[ChatServer], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "example:llm_rubric_microsoft", "--judge", "openai/test", "--json"]
    assert main([*args, "--base-url", servers[0].base_url, "--no-cache"]) == 0
    assert json.loads(capsys.readouterr().out)["endpoints"] == {}


@pytest.mark.parametrize("command", ["evaluate", "grade", "calibrate"])
def test_cli_names_the_flag_of_a_malformed_list(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = "http://127.0.0.1:9/v1,,http://127.0.0.1:10/v1"
    args = {
        "evaluate": ["evaluate", "example:llm_rubric_microsoft"],
        "grade": ["grade", str(_rubric_file(tmp_path)), "--text", "hi"],
        "calibrate": [
            "calibrate",
            "example:llm_rubric_microsoft",
            "--train",
            "2",
            "-o",
            str(tmp_path / "c"),
        ],
    }[command]
    assert main([*args, "--judge", "openai/test", "--base-url", bad]) == 1
    err = capsys.readouterr().err
    assert "--base-url" in err and "entry 2 is empty" in err and "Traceback" not in err


def _rubric_file(tmp: Path) -> Path:
    path = tmp / "rubric.yaml"
    path.write_text("- name: c\n  weight: 1\n  requirement: It holds.\n")
    return path


def test_grade_prints_each_server_s_numbers(
    servers: list[ChatServer], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = servers[0], servers[1]
    inputs = tmp_path / "in.jsonl"
    inputs.write_text("".join(json.dumps({"id": str(i), "submission": "x"}) + "\n" for i in "12"))
    args = ["grade", str(_rubric_file(tmp_path)), str(inputs), "--judge", "openai/test"]
    assert main([*args, "--base-url", f"{a.base_url},{b.base_url}", "--no-cache"]) == 0
    err = capsys.readouterr().err
    assert f"{a.base_url}: 1 sent, 0 failed" in err and f"{b.base_url}: 1 sent, 0 failed" in err


async def test_a_grader_used_twice_reports_each_run_s_own_calls(
    servers: list[ChatServer],
) -> None:
    urls = [s.base_url for s in servers[:2]]
    items = [DataItem(submission=f"answer {i}", id=f"item-{i}") for i in range(3)]
    dataset = RubricDataset(prompt="Say something", rubric=_rubric(), items=items)
    grader = CriterionGrader("openai/test", judge_options={"base_url": urls, "cache": False})
    for _ in range(2):
        result = await evaluate(dataset, grader)
        assert sum(s.calls for s in result.summary.endpoints.values()) == 6


async def test_resuming_with_other_servers_needs_force_and_reuses_judgments(
    servers: list[ChatServer], tmp_path: Path
) -> None:
    items = [DataItem(submission=f"answer {i}", id=f"item-{i}") for i in range(3)]
    dataset = RubricDataset(prompt="Say something", rubric=_rubric(), items=items)

    def grader(urls: list[str]) -> CriterionGrader:
        return CriterionGrader("openai/test", judge_options={"base_url": urls, "cache": False})

    run = tmp_path / "run"
    await evaluate(dataset, grader([s.base_url for s in servers]), run_dir=run)
    fewer = grader([servers[0].base_url, servers[1].base_url])
    with pytest.raises(UsageError, match="different judge configuration"):
        await evaluate(dataset, fewer, run_dir=run, resume=True)
    result = await evaluate(dataset, fewer, run_dir=run, resume=True, force=True)
    assert result.summary.replayed_calls == 6 and result.summary.endpoints == {
        servers[0].base_url: EndpointStats(),
        servers[1].base_url: EndpointStats(),
    }


# -- a server that answers fast with garbage (issue 23, N5) ------------------------


def test_a_server_answering_garbage_fast_rests_and_is_reported(
    servers: list[ChatServer], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad, good = servers[0], servers[1]
    bad.handler = lambda body: Reply.text("I am not JSON at all")
    good.handler = _slow(0.05)
    inputs = tmp_path / "in.jsonl"
    inputs.write_text("".join(json.dumps({"submission": f"answer {i}"}) + "\n" for i in range(60)))
    args = ["grade", str(_rubric_file(tmp_path)), str(inputs), "--judge", "openai/test"]
    out = tmp_path / "out.jsonl"
    code = main(
        [*args, "--base-url", f"{bad.base_url},{good.base_url}", "--no-cache", "-o", str(out)]
    )
    assert code == 0
    reports = [json.loads(x) for x in out.read_text().splitlines()]
    failed = sum(r["score"] is None for r in reports)
    # was 160 of 180: every re-ask went back to the fast bad one; each unreadable reply
    # is now asked again of the good server in the same attempt
    assert failed == 0, failed
    err = capsys.readouterr().err
    sent_bad = len(bad.chat_requests)
    assert f"{bad.base_url}: {sent_bad} sent, {sent_bad} failed ({sent_bad} unreadable)" in err
    assert sent_bad < 15 < len(good.chat_requests)


async def test_a_reply_that_is_not_the_schema_counts_against_its_server(
    servers: list[ChatServer],
) -> None:
    bad, good = servers[0], servers[1]
    bad.handler = lambda body: Reply.json({"something": "else"})
    judge = _judge([bad.base_url, good.base_url])
    for _ in range(4):
        await judge.judge(request())  # the first asked again of the good server
    stats = judge.endpoint_stats()
    assert stats[bad.base_url].unreadable == stats[bad.base_url].errors == 1
    assert not stats[bad.base_url].healthy and stats[good.base_url].calls == 4


# -- a server that answers 429 (issue 32) -------------------------------------------


def _three_criteria(tmp: Path) -> Path:
    path = tmp / "rubric3.yaml"
    path.write_text(
        "- name: a\n  weight: 1\n  requirement: It holds.\n"
        "- name: b\n  weight: 1\n  requirement: It is brief.\n"
        "- name: c\n  weight: 1\n  requirement: It is polite.\n"
    )
    return path


@pytest.mark.parametrize("retry_after", [None, "1"])
def test_a_rate_limited_server_rests_and_its_calls_go_to_the_healthy_one(
    retry_after: str | None,
    servers: list[ChatServer],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    limited, good = servers[0], servers[1]
    limited.handler = lambda body: Reply.rate_limited(retry_after)
    good.handler = _slow(0.02)
    inputs = tmp_path / "in.jsonl"
    inputs.write_text("".join(json.dumps({"submission": f"answer {i}"}) + "\n" for i in range(60)))
    args = ["grade", str(_three_criteria(tmp_path)), str(inputs), "--judge", "openai/test"]
    out = tmp_path / "out.jsonl"
    urls = f"{limited.base_url},{good.base_url}"
    assert main([*args, "--base-url", urls, "--no-cache", "-o", str(out)]) == 0
    reports = [json.loads(x) for x in out.read_text().splitlines()]
    # was 7 failed judgments, 168 of 180 requests sent to the server answering 429
    assert sum(r["score"] is None for r in reports) == 0
    assert len(good.chat_requests) == 180
    sent = len(limited.chat_requests)
    assert sent <= 30, sent  # the calls already in flight when it first refused, and probes
    err = capsys.readouterr().err
    assert f"{limited.base_url}: {sent} sent, {sent} failed ({sent} rate-limited)" in err


async def test_retry_after_of_a_rate_limited_server_is_honoured(
    servers: list[ChatServer],
) -> None:
    limited, good = servers[0], servers[1]
    limited.script(Reply.rate_limited("3"))
    judge = _judge([limited.base_url, good.base_url])  # max_retries=0
    started = time.monotonic()
    first = await judge.judge(request())
    assert first.attempts == 1 and len(good.chat_requests) == 1  # moved, same attempt
    for _ in range(3):
        await judge.judge(request())
    assert time.monotonic() - started < 3  # (on a very busy machine the test proves less)
    assert len(limited.chat_requests) == 1  # resting as long as it asked
    await asyncio.sleep(max(0.0, 3.1 - (time.monotonic() - started)))
    await judge.judge(request())  # its rest is over: the probe goes to it and it answers
    assert len(limited.chat_requests) == 2
    stats = judge.endpoint_stats()[limited.base_url]
    assert (stats.calls, stats.errors, stats.rate_limited, stats.healthy) == (2, 1, 1, True)


async def test_every_server_rate_limited_waits_for_the_first_back(
    servers: list[ChatServer],
) -> None:
    a, b = servers[0], servers[1]
    a.script(Reply.rate_limited("0.4"))
    b.script(Reply.rate_limited("0.8"))
    judge = _judge([a.base_url, b.base_url], max_retries=1)
    judge.sleep = waits = SleepLog(cap=1.0)
    reply = await judge.judge(request())
    # one wait, until a is back (0.4 s after it refused), not b's 0.8 s nor a jitter
    assert reply.attempts == 2 and len(waits.waits) == 1
    assert 0.0 < waits.waits[0] <= 0.4
    assert (len(a.chat_requests), len(b.chat_requests)) == (2, 1)  # a was back first
    c = servers[2]  # b still rests
    a.script(Reply.rate_limited("5"))
    c.script(Reply.rate_limited("7"))
    with pytest.raises(JudgeError) as e:
        await _judge([a.base_url, c.base_url]).judge(request())  # no retry: the error
    assert e.value.category == "rate_limit" and "2 of 2 endpoints tried" in str(e.value)


async def test_a_reply_not_of_the_schema_is_asked_again_of_another_server(
    servers: list[ChatServer],
) -> None:
    bad, good = servers[0], servers[1]
    bad.handler = lambda body: Reply.json({"something": "else"})
    judge = _judge([bad.base_url, good.base_url])
    reply = await judge.judge(request())
    assert reply.data["verdict"] == "MET" and reply.attempts == 1  # was {"something": "else"}
    assert (len(bad.chat_requests), len(good.chat_requests)) == (1, 1)
    # with no other server to ask, the reply goes to the grader as from one server
    lone = _judge([bad.base_url])
    assert (await lone.judge(request())).data == {"something": "else"}
