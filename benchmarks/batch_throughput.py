"""Batch throughput: judgments per second against a scripted OpenAI-compatible server.

Grades N items x 5 criteria with the per-criterion grader and a run directory
(every judgment committed to SQLite), against ``tests/chat_server.py`` answering
each request after a fixed delay, and prints achieved judgments per second over
the ideal (concurrency / delay) and the peak memory growth of the run. Each size
runs in a fresh process so peak memory is per size.

    python benchmarks/batch_throughput.py                  # 1,000 and 10,000 items
    python benchmarks/batch_throughput.py --items 1000     # one size
    python benchmarks/batch_throughput.py --judge stub     # no HTTP: the run machinery only

``--judge stub`` replaces the HTTP judge with one that sleeps ``--delay`` and
answers, to separate the cost of the run machinery (pool, grader, run store)
from the cost of the HTTP client.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CRITERIA = 5


def _rss_kib() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def serve(delay: float) -> None:
    """Run the chat server (in its own process, so it does not share our GIL)."""
    import http.server

    sys.path.insert(0, str(ROOT / "tests"))
    import chat_server
    from chat_server import ChatServer, Reply, schema_of
    from rubricate._judges._fake import fake_reply_for_schema

    # 64 clients connect at once: a deeper accept queue than socketserver's 5, and
    # no Nagle delay between the header and body writes of each response
    http.server.ThreadingHTTPServer.request_queue_size = 1024
    chat_server._Handler.disable_nagle_algorithm = True
    server = ChatServer().start()
    server.handler = lambda body: Reply.json(
        fake_reply_for_schema(schema_of(body) or {}), delay=delay
    )
    print(server.base_url, flush=True)
    sys.stdin.read()  # serve until the parent closes our stdin
    server.close()


class StubJudge:
    """Sleeps, then answers the first enum value: a judge with no client cost."""

    def __init__(self, delay: float, concurrency: int) -> None:
        self.delay = delay
        self.gate = asyncio.Semaphore(concurrency)

    @property
    def name(self) -> str:
        return "stub"

    async def judge(self, request: Any) -> Any:
        from rubricate._judges._base import JudgeResponse
        from rubricate._judges._fake import fake_reply_for_schema

        async with self.gate:
            await asyncio.sleep(self.delay)
        data = fake_reply_for_schema(request.schema)
        return JudgeResponse(data=data, raw_text=json.dumps(data), latency_s=self.delay)


def measure(items: int, concurrency: int, delay: float, judge_kind: str, url: str | None) -> dict:
    from rubricate._dataset import DataItem, RubricDataset
    from rubricate._graders import CriterionGrader
    from rubricate._judges._registry import get_judge
    from rubricate._model import Criterion, Rubric
    from rubricate._runs import evaluate

    rubric = Rubric(
        [
            Criterion(name=f"c{i}", requirement=f"The answer meets requirement {i}.")
            for i in range(CRITERIA)
        ]
    )
    dataset = RubricDataset(
        prompt="Answer the question.",
        rubric=rubric,
        items=[DataItem(submission=f"Answer number {i}. " * 20, id=f"i{i}") for i in range(items)],
    )
    if judge_kind == "stub":
        judge: Any = StubJudge(delay, concurrency)
    else:
        judge = get_judge("openai/bench", base_url=url, concurrency=concurrency, cache=False)
    grader = CriterionGrader(judge=judge, concurrency=concurrency)
    with tempfile.TemporaryDirectory() as tmp:
        base = _rss_kib()
        start = time.perf_counter()
        result = asyncio.run(
            evaluate(
                dataset, grader, run_dir=Path(tmp) / "run", concurrency=concurrency, progress=False
            )
        )
        wall = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    judgments = result.summary.judge_calls
    assert judgments == items * CRITERIA, result.summary.to_text()
    rate = judgments / wall
    ideal = concurrency / delay
    return {
        "items": items,
        "judgments": judgments,
        "wall_s": round(wall, 2),
        "judgments_per_s": round(rate, 1),
        "ideal_per_s": round(ideal, 1),
        "ratio": round(rate / ideal, 3),
        "peak_rss_growth_mib": round((peak - base) / 1024, 1),
        "failed": result.summary.items_failed + result.summary.items_with_judge_errors,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--judge", choices=("http", "stub"), default="http")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.delay)
        return
    if args.one:
        out = measure(args.items[0], args.concurrency, args.delay, args.judge, args.url)
        print(json.dumps(out), flush=True)
        return
    server = None
    url = None
    if args.judge == "http":
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", "--delay", str(args.delay)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert server.stdout is not None
        url = server.stdout.readline().strip()
    try:
        print(
            f"{CRITERIA} criteria per item, concurrency {args.concurrency}, "
            f"reply delay {args.delay * 1000:.0f} ms, judge: {args.judge}"
        )
        for n in args.items:
            cmd = [
                sys.executable,
                __file__,
                "--one",
                "--items",
                str(n),
                "--judge",
                args.judge,
                "--concurrency",
                str(args.concurrency),
                "--delay",
                str(args.delay),
            ]
            if url:
                cmd += ["--url", url]
            r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            print(
                f"{r['items']:>6} items: {r['judgments_per_s']:>7.1f} judgments/s of ideal "
                f"{r['ideal_per_s']:.0f} = {r['ratio']:.2f}   wall {r['wall_s']:.1f}s   "
                f"peak RSS growth {r['peak_rss_growth_mib']:.1f} MiB   failed {r['failed']}"
            )
    finally:
        if server is not None:
            assert server.stdin is not None
            server.stdin.close()
            server.wait(timeout=10)


if __name__ == "__main__":
    main()
