"""Concurrency and rate limits per provider, counted at the server and with a fake clock."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._fake import fake_reply_for_schema
from rubricjudge._judges._provider_limits import Gate, TokenBucket, limits_for
from rubricjudge._model._rubric import Criterion, Rubric
from rubricjudge._runs._evaluate import evaluate
from tests.support.chat_server import ChatServer, Reply, schema_of
from tests.support.judge_helpers import openai_judge, request, waits


async def _burst(server: ChatServer, n: int, **options: object) -> None:
    judge = openai_judge(server, **options)
    await asyncio.gather(*(judge.judge(request(f"q{i}")) for i in range(n)))


async def test_concurrency_limit_holds_at_the_server(chat_server: ChatServer) -> None:
    chat_server.handler = lambda body: Reply.json({"verdict": "MET", "reason": ""}, delay=0.05)
    await _burst(chat_server, 12, concurrency=3)
    assert len(chat_server.chat_requests) == 12
    assert 1 <= chat_server.max_in_flight <= 3


async def test_without_a_limit_the_same_burst_overlaps_more(chat_server: ChatServer) -> None:
    chat_server.handler = lambda body: Reply.json({"verdict": "MET", "reason": ""}, delay=0.3)
    await _burst(chat_server, 12, concurrency=12)
    assert chat_server.max_in_flight > 3  # so the test above can fail


async def test_limit_is_shared_by_all_judges_of_a_provider(chat_server: ChatServer) -> None:
    chat_server.handler = lambda body: Reply.json({"verdict": "MET", "reason": ""}, delay=0.05)
    one = openai_judge(chat_server, "model-a", concurrency=2)
    two = openai_judge(chat_server, "model-b")  # same base URL: same provider limits
    calls = [j.judge(request(f"q{i}")) for i in range(6) for j in (one, two)]
    await asyncio.gather(*calls)
    assert len(chat_server.chat_requests) == 12
    assert chat_server.max_in_flight <= 2


async def test_queue_wait_is_reported_apart_from_latency(chat_server: ChatServer) -> None:
    # one slot, three calls of at least 0.1 s each: the later ones wait for the slot, and
    # that wait is their queue_s, not their latency
    chat_server.handler = lambda body: Reply.json({"verdict": "MET", "reason": ""}, delay=0.1)
    judge = openai_judge(chat_server, concurrency=1, cache=False)

    async def timed(i: int) -> tuple[float, float, float]:
        loop = asyncio.get_running_loop()
        began = loop.time()
        r = await judge.judge(request(f"q{i}"))
        return r.latency_s, r.queue_s, loop.time() - began

    got = await asyncio.gather(*(timed(i) for i in range(3)))
    assert chat_server.max_in_flight == 1
    for latency, queued, total in got:
        assert latency >= 0.1  # the server's own delay is the call's time
        assert latency + queued <= total + 1e-6
    queues = sorted(q for _, q, _ in got)
    assert queues[1] >= 0.1 and queues[2] >= 0.2  # waited for one, then two calls


async def test_queue_wait_reaches_the_run_store_and_summary(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.handler = lambda body: Reply.json(
        fake_reply_for_schema(schema_of(body) or {}), delay=0.05
    )
    rubric = Rubric([Criterion(name="ok", requirement="It is fine", weight=1)])
    items = [DataItem(submission=f"answer {i}", id=f"i{i}") for i in range(4)]
    dataset = RubricDataset(prompt="Say something", rubric=rubric, items=items)
    judge = openai_judge(chat_server, concurrency=1, cache=False)
    result = await evaluate(
        dataset, CriterionGrader(judge=judge), concurrency=4, run_dir=tmp_path / "run"
    )
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        rows = db.execute("SELECT latency_s, queue_s FROM judgments").fetchall()
    assert len(rows) == 4 and all(lat >= 0.05 for lat, _ in rows)
    assert max(q for _, q in rows) >= 0.15  # the last waited for three calls
    summary = result.summary
    assert summary.queue_s["max"] >= 0.15
    assert "queue wait" in summary.to_text()
    info = result.reports[0].report[0].llm_invocation  # type: ignore[index]
    assert info is not None and "queue_s" in info


async def test_requests_per_minute_make_calls_wait(chat_server: ChatServer) -> None:
    # 2/s, burst of 2: the three past the burst wait; a busy machine would need to stall
    # the loop for half a second before they ask to refill a token for them
    judge = openai_judge(chat_server, requests_per_minute=120)
    await asyncio.gather(*(judge.judge(request(f"q{i}")) for i in range(5)))
    assert len(chat_server.chat_requests) == 5
    assert len(waits(judge)) >= 3  # the three past the burst had to wait for tokens
    assert all(w > 0 for w in waits(judge))


async def test_without_rate_limits_nothing_waits(chat_server: ChatServer) -> None:
    judge = openai_judge(chat_server)
    await asyncio.gather(*(judge.judge(request(f"q{i}")) for i in range(13)))
    assert waits(judge) == []


async def test_tokens_per_minute_count_prompt_size(chat_server: ChatServer) -> None:
    judge = openai_judge(chat_server, tokens_per_minute=6000, max_tokens=10)  # 100 tokens/s
    big = "x" * 1200  # ~300 tokens each: over the one-second burst
    await asyncio.gather(*(judge.judge(request(big + str(i))) for i in range(2)))
    assert waits(judge)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


async def test_token_bucket_refills_at_its_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=2.0, capacity=2.0, clock=clock)
    for _ in range(6):
        await bucket.take(1, clock.sleep)
    # 2 from the full bucket, then 4 more at 2 per second
    assert clock.now == 2.0
    assert bucket.try_take(1) > 0


async def test_token_bucket_lets_an_oversized_take_through_when_full() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=1.0, capacity=5.0, clock=clock)
    await bucket.take(50, clock.sleep)  # full bucket: goes, overdraws
    assert clock.now == 0.0
    await bucket.take(1, clock.sleep)  # must repay the overdraft first
    assert clock.now >= 45.0


def test_gate_works_across_sequential_event_loops() -> None:
    gate = Gate(1)
    peak = 0
    active = 0

    async def hold() -> None:
        nonlocal peak, active
        await gate.acquire()
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.005)
        active -= 1
        gate.release()

    async def main() -> None:
        await asyncio.gather(*(hold() for _ in range(5)))

    for _ in range(3):
        asyncio.run(main())
    assert peak == 1 and gate.active == 0


def test_gate_is_shared_by_loops_in_threads() -> None:
    gate = Gate(2)
    lock = threading.Lock()
    state = {"active": 0, "peak": 0}

    async def hold() -> None:
        await gate.acquire()
        with lock:
            state["active"] += 1
            state["peak"] = max(state["peak"], state["active"])
        await asyncio.sleep(0.005)
        with lock:
            state["active"] -= 1
        gate.release()

    async def main() -> None:
        await asyncio.wait_for(asyncio.gather(*(hold() for _ in range(5))), 10)

    def worker() -> None:
        asyncio.run(main())

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert state["peak"] <= 2 and gate.active == 0


async def test_cancelled_waiter_gives_its_place_back() -> None:
    gate = Gate(1)
    await gate.acquire()
    waiter = asyncio.create_task(gate.acquire())
    await asyncio.sleep(0)
    waiter.cancel()
    gate.release()
    await asyncio.sleep(0)
    assert gate.active == 0
    await asyncio.wait_for(gate.acquire(), 1)


def test_same_limit_set_again_does_not_refill() -> None:
    limits = limits_for("test|refill", rpm=60)
    bucket = limits.requests
    assert bucket is not None and bucket.try_take(1) == 0.0
    assert limits_for("test|refill", rpm=60).requests is bucket
    assert limits_for("test|refill", rpm=120).requests is not bucket
