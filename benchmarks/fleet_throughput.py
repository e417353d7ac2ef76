"""Fleet throughput: one judge over 1, 2 and 3 OpenAI-compatible servers, side by side.

Each server is ``tests/support/chat_server.py`` in its own process, modelling one GPU box:
it answers after ``--delay`` (50 ms) and works on at most ``--slots`` (8) requests at
once, queueing the rest, so one server can give at most slots / delay judgments a
second and a fleet of N servers N times that. The judge is ``openai/bench`` with
``base_url`` listing the servers; the grader sends ``--concurrency`` calls at once.
The run grades N items x 5 criteria with a run directory, as ``evaluate`` does.

Printed per fleet size: judgments per second, the ideal (servers x slots / delay,
capped by the client's concurrency / delay), their ratio, and each server's share
of the calls. A last run kills one of three servers half-way (SIGKILL) and shows
the calls moving to the two left, with no judgment lost.

    python benchmarks/fleet_throughput.py                 # 300 items
    python benchmarks/fleet_throughput.py --items 1000
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CRITERIA = 5


def serve(delay: float, slots: int) -> None:
    """Run one chat server with ``slots`` request slots (in its own process)."""
    sys.path.insert(0, str(ROOT))
    from rubricjudge._judges._fake import fake_reply_for_schema
    from tests.support.chat_server import ChatServer, Reply, schema_of

    gate = threading.Semaphore(slots)

    def handler(body: Any) -> Any:
        with gate:  # a busy server queues, as a GPU server's scheduler does
            time.sleep(delay)
        return Reply.json(fake_reply_for_schema(schema_of(body) or {}))

    server = ChatServer().start()
    server.handler = handler
    print(server.base_url, flush=True)
    sys.stdin.read()  # serve until the parent closes our stdin
    server.close()


def _start(delay: float, slots: int) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--delay", str(delay), "--slots", str(slots)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def measure(
    urls: list[str], items: int, concurrency: int, kill: subprocess.Popen[str] | None = None
) -> Any:
    """Grade ``items`` items over the fleet ``urls``; kill ``kill`` half-way if given."""
    from rubricjudge._datasets._dataset import DataItem
    from rubricjudge._datasets._io import RubricDataset
    from rubricjudge._graders._criterion import CriterionGrader
    from rubricjudge._judges._registry import get_judge
    from rubricjudge._model._rubric import Criterion, Rubric
    from rubricjudge._runs._evaluate import evaluate

    rubric = Rubric(
        [Criterion(name=f"c{i}", requirement=f"The answer meets {i}.") for i in range(CRITERIA)]
    )
    dataset = RubricDataset(
        prompt="Answer the question.",
        rubric=rubric,
        items=[DataItem(submission=f"Answer number {i}. " * 20, id=f"i{i}") for i in range(items)],
    )
    judge = get_judge("openai/bench", base_url=urls, concurrency=concurrency, cache=False)
    grader = CriterionGrader(judge=judge, concurrency=concurrency)
    done = [0]

    def progress(n: int, total: int) -> None:
        done[0] = n
        if kill is not None and kill.poll() is None and n >= total // 2:
            kill.kill()

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        result = asyncio.run(
            evaluate(
                dataset,
                grader,
                run_dir=Path(tmp) / "run",
                concurrency=concurrency,
                progress=progress,
            )
        )
        wall = time.perf_counter() - start
    return result.summary, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=300)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--slots", type=int, default=8)
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.delay, args.slots)
        return
    servers = [_start(args.delay, args.slots) for _ in range(3)]
    urls = [u for _, u in servers]
    print(
        f"{args.items} items x {CRITERIA} criteria, client concurrency {args.concurrency}; "
        f"each server: {args.delay * 1000:.0f} ms per request, {args.slots} at once"
    )
    try:
        for n in (1, 2, 3):
            summary, wall = measure(urls[:n], args.items, args.concurrency)
            rate = summary.judge_calls / wall
            ideal = min(n * args.slots, args.concurrency) / args.delay
            shares = " ".join(f"{st.calls}" for st in summary.endpoints.values()) or str(
                summary.judge_calls
            )
            print(
                f"{n} server{'s' if n > 1 else ' '}: {rate:6.1f} judgments/s of ideal "
                f"{ideal:4.0f} = {rate / ideal:.2f}   wall {wall:5.2f}s   "
                f"calls per server: {shares}   judge errors {summary.items_with_judge_errors}"
            )
        victim = servers[2][0]
        summary, wall = measure(urls, args.items, args.concurrency, kill=victim)
        print(
            f"3 servers, the third killed half-way: {summary.judge_calls / wall:6.1f} "
            f"judgments/s   wall {wall:5.2f}s   judgments {summary.judge_calls} of "
            f"{args.items * CRITERIA}   items with judge errors {summary.items_with_judge_errors}"
        )
        for url, st in summary.endpoints.items():
            lat = "  ".join(f"{k} {v * 1000:.0f} ms" for k, v in st.latency_s.items())
            print(f"  {url}: {st.calls} sent, {st.errors} failed  {lat}")
    finally:
        for proc, _ in servers:
            if proc.poll() is None:
                assert proc.stdin is not None
                proc.stdin.close()
                proc.wait()


if __name__ == "__main__":
    main()
