"""The local model's worker thread: one job at a time, same-prefix jobs together."""

from __future__ import annotations

import asyncio
import threading

import pytest

from rubricjudge._judges._local_worker import PrefixScheduler


def blocked(sched: PrefixScheduler) -> threading.Event:
    """Occupy the worker until the returned event is set."""
    gate = threading.Event()
    sched.submit(lambda: gate.wait(10))
    return gate


def test_jobs_sharing_the_last_prefix_go_first() -> None:
    sched = PrefixScheduler()
    gate = blocked(sched)
    futures = [sched.submit(lambda g=g: g, group=g) for g in ["A", "B", "A", "B", None, "C"]]
    gate.set()
    assert [f.result(10) for f in futures] == ["A", "B", "A", "B", None, "C"]
    assert sched.order == [None, "A", "A", "B", "B", None, "C"]


def test_one_job_at_a_time_on_one_thread() -> None:
    sched = PrefixScheduler()
    running = 0
    peak = 0
    threads = set()
    lock = threading.Lock()

    def job() -> None:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        threads.add(threading.get_ident())
        threading.Event().wait(0.001)
        with lock:
            running -= 1

    for f in [sched.submit(job, group=i % 3) for i in range(30)]:
        f.result(10)
    assert peak == 1 and len(threads) == 1 and threading.get_ident() not in threads


async def test_errors_reach_the_caller_and_the_loop_stays_free() -> None:
    sched = PrefixScheduler()
    gate = threading.Event()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while not gate.is_set():
            ticks += 1
            await asyncio.sleep(0)

    def fail() -> None:
        gate.wait(10)
        raise ValueError("boom")

    tick = asyncio.create_task(ticker())
    job = asyncio.create_task(sched.run(fail))
    while ticks < 5:
        await asyncio.sleep(0)
    gate.set()
    with pytest.raises(ValueError, match="boom"):
        await job
    await tick
    assert ticks >= 5


async def test_a_cancelled_waiter_is_skipped() -> None:
    sched = PrefixScheduler()
    gate = blocked(sched)
    ran: list[str] = []
    doomed = asyncio.create_task(sched.run(lambda: ran.append("doomed")))
    await asyncio.sleep(0)
    doomed.cancel()
    with pytest.raises(asyncio.CancelledError):
        await doomed
    gate.set()
    await sched.run(lambda: ran.append("kept"))
    assert ran == ["kept"]
