"""Batch throughput: judgments per second against a scripted OpenAI-compatible server.

Grades N items x 5 criteria with the per-criterion grader and a run directory
(every judgment committed to SQLite), against ``tests/support/chat_server.py`` answering
each request after a fixed delay, and prints achieved judgments per second over
the ideal (concurrency / delay) and the peak memory growth of the run. Each size
runs in a fresh process so peak memory is per size.

    python benchmarks/batch_throughput.py                  # 1,000 and 10,000 items
    python benchmarks/batch_throughput.py --items 1000     # one size
    python benchmarks/batch_throughput.py --judge stub     # no HTTP: the run machinery only

After the runs it measures, at the first size and in the same run, what bounds
the ratio: the same judge with its HTTP call made by the official ``openai`` SDK
instead of rubricjudge's aiohttp path (``--judge sdk``; the SDK's aiohttp transport
and a pre-serialised body, the leanest path the SDK offers), the run machinery
with no HTTP at all (``--judge stub``: a judge that sleeps ``--delay``), and the
server alone, driven by a raw-socket client that costs almost nothing. The
client is one event loop, so it cannot finish more than 1 / (CPU seconds per
judgment) judgments a second; the server's threads and the client's loop share
the machine's cores.
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
    sys.path.insert(0, str(ROOT))
    from rubricjudge._judges._fake import fake_reply_for_schema
    from tests.support.chat_server import ChatServer, Reply, schema_of

    server = ChatServer().start()
    server.handler = lambda body: Reply.json(
        fake_reply_for_schema(schema_of(body) or {}), delay=delay
    )
    print(server.base_url, flush=True)
    sys.stdin.read()  # serve until the parent closes our stdin
    server.close()


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def probe_server(url: str, concurrency: int, requests: int, server_pid: int) -> dict:
    """The server alone: raw keep-alive POSTs over ``concurrency`` sockets, no SDK."""
    from urllib.parse import urlparse

    sys.path.insert(0, str(ROOT))
    from rubricjudge._graders._criterion_prompts import criterion_schema
    from rubricjudge._model._rubric import Criterion

    u = urlparse(url)
    schema = criterion_schema(Criterion(name="c", requirement="r"))
    fmt = {"type": "json_schema", "json_schema": {"name": "j", "schema": schema, "strict": True}}
    body = json.dumps(
        {
            "model": "bench",
            "messages": [
                {"role": "system", "content": "You grade. " * 100},
                {"role": "user", "content": "Answer number 1. " * 20},
            ],
            "response_format": fmt,
        }
    ).encode()
    head = (
        f"POST {u.path}/chat/completions HTTP/1.1\r\nHost: {u.netloc}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    message = head.encode() + body
    left = [requests]

    async def connection() -> None:
        reader, writer = await asyncio.open_connection(u.hostname, u.port)
        while left[0] > 0:
            left[0] -= 1
            writer.write(message)
            header = await reader.readuntil(b"\r\n\r\n")
            size = next(
                int(line.split(b":")[1])
                for line in header.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
            await reader.readexactly(size)
        writer.close()

    async def run() -> None:
        await asyncio.gather(*(connection() for _ in range(concurrency)))

    server_cpu = _cpu_s(server_pid)
    cpu = time.process_time()
    start = time.perf_counter()
    asyncio.run(run())
    wall = time.perf_counter() - start
    return {
        "requests_per_s": round(requests / wall, 1),
        "server_cpu_ms_per_request": round((_cpu_s(server_pid) - server_cpu) / requests * 1e3, 3),
        "load_cpu_ms_per_request": round((time.process_time() - cpu) / requests * 1e3, 3),
    }


class StubJudge:
    """Sleeps, then answers the first enum value: a judge with no client cost."""

    def __init__(self, delay: float, concurrency: int) -> None:
        self.delay = delay
        self.gate = asyncio.Semaphore(concurrency)

    @property
    def name(self) -> str:
        return "stub"

    async def judge(self, request: Any) -> Any:
        from rubricjudge._judges._base import JudgeResponse
        from rubricjudge._judges._fake import fake_reply_for_schema

        async with self.gate:
            await asyncio.sleep(self.delay)
        data = fake_reply_for_schema(request.schema)
        return JudgeResponse(data=data, raw_text=json.dumps(data), latency_s=self.delay)


def sdk_judge(url: str, concurrency: int) -> Any:
    """The same judge, with the HTTP call made by the official openai SDK."""
    import openai

    try:  # the SDK's HTTP library: httpx2 in openai>=3, httpx before
        from httpx2 import Response
    except ImportError:
        from httpx import Response  # type: ignore[assignment,no-redef]

    from rubricjudge._judges._base import JudgeConfig, JudgeRequest, JudgeResponse
    from rubricjudge._judges._openai import OpenAIJudge
    from rubricjudge._judges._reliable import make_reliable

    class SDKJudge(OpenAIJudge):
        client: Any = None

        async def judge(self, request: JudgeRequest) -> JudgeResponse:
            start = time.perf_counter()
            if self.client is None:
                try:
                    http = openai.DefaultAioHttpClient(timeout=60)  # its fastest transport
                except Exception:
                    http = None
                self.client = openai.AsyncOpenAI(
                    base_url=url, api_key="x", max_retries=0, http_client=http
                )
            body = json.dumps(self._params(request, True)).encode()
            options: Any = {"headers": {"Content-Type": "application/json"}}
            response = await self.client.post(
                "/chat/completions", cast_to=Response, content=body, options=options
            )
            return self._read(json.loads(response.content), time.perf_counter() - start)

    config = JudgeConfig(base_url=url, cache=False, concurrency=concurrency)
    return make_reliable(SDKJudge("bench", config), config, "openai", "bench")


def measure(items: int, concurrency: int, delay: float, judge_kind: str, url: str | None) -> dict:
    from rubricjudge._datasets._dataset import DataItem
    from rubricjudge._datasets._io import RubricDataset
    from rubricjudge._graders._criterion import CriterionGrader
    from rubricjudge._judges._registry import get_judge
    from rubricjudge._model._rubric import Criterion, Rubric
    from rubricjudge._runs._evaluate import evaluate

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
    elif judge_kind == "sdk":
        assert url is not None
        judge = sdk_judge(url, concurrency)
    else:
        judge = get_judge("openai/bench", base_url=url, concurrency=concurrency, cache=False)
    grader = CriterionGrader(judge=judge, concurrency=concurrency)
    with tempfile.TemporaryDirectory() as tmp:
        base = _rss_kib()
        cpu = time.process_time()
        start = time.perf_counter()

        async def run() -> Any:
            try:
                return await evaluate(
                    dataset,
                    grader,
                    run_dir=Path(tmp) / "run",
                    concurrency=concurrency,
                    progress=False,
                )
            finally:
                client = getattr(getattr(judge, "inner", None), "client", None)
                if client is not None:
                    await client.close()

        result = asyncio.run(run())
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu
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
        "client_cpu_ms_per_judgment": round(cpu / judgments * 1000, 3),
        "peak_rss_growth_mib": round((peak - base) / 1024, 1),
        "failed": result.summary.items_failed + result.summary.items_with_judge_errors,
    }


def _child(*args: str) -> dict:
    cmd = [sys.executable, __file__, *args]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def _line(r: dict) -> str:
    return (
        f"{r['items']:>6} items: {r['judgments_per_s']:>7.1f} judgments/s of ideal "
        f"{r['ideal_per_s']:.0f} = {r['ratio']:.2f}   wall {r['wall_s']:.1f}s   "
        f"client CPU {r['client_cpu_ms_per_judgment']:.2f} ms/judgment   "
        f"peak RSS growth {r['peak_rss_growth_mib']:.1f} MiB   failed {r['failed']}"
    )


def explain(http: dict, sdk: dict, stub: dict, server: dict, ideal: float, cores: int) -> list[str]:
    """What bounds the HTTP ratio, from the measurements (printed after the runs)."""
    cpu = http["client_cpu_ms_per_judgment"] / 1e3
    ceiling = 1 / cpu
    server_cpu = server["server_cpu_ms_per_request"] / 1e3
    need = (cpu + server_cpu) * ideal
    return [
        f"same judge, HTTP by the official openai SDK: {sdk['ratio']:.2f} of ideal, "
        f"{sdk['client_cpu_ms_per_judgment']:.2f} ms client CPU per judgment "
        f"(rubricjudge's aiohttp path: {http['ratio']:.2f}, "
        f"{http['client_cpu_ms_per_judgment']:.2f} ms)",
        f"run machinery alone (judge that only sleeps, no HTTP): {stub['ratio']:.2f} of ideal, "
        f"{stub['client_cpu_ms_per_judgment']:.2f} ms CPU per judgment",
        f"server alone (raw-socket client): {server['requests_per_s']:.0f} req/s = "
        f"{server['requests_per_s'] / ideal:.2f} of ideal, "
        f"{server['server_cpu_ms_per_request']:.2f} ms server CPU per request",
        f"bound: the client is one event loop (one core) spending "
        f"{cpu * 1e3:.2f} ms CPU per judgment over HTTP, so at most {ceiling:.0f}/s = "
        f"{ceiling / ideal:.2f} of ideal even with the loop 100% busy; the ideal "
        f"{ideal:.0f}/s needs {need:.2f} cores of client + server CPU "
        f"({cores} cores here, shared with other load).",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--judge", choices=("http", "sdk", "stub"), default="http")
    ap.add_argument(
        "--no-bounds", action="store_true", help="skip the SDK, stub and server-alone runs"
    )
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--probe", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.delay)
        return
    if args.one:
        out = measure(args.items[0], args.concurrency, args.delay, args.judge, args.url)
        print(json.dumps(out), flush=True)
        return
    if args.probe is not None:
        out = probe_server(args.url, args.concurrency, args.items[0] * CRITERIA, args.probe)
        print(json.dumps(out), flush=True)
        return
    server = None
    url = None
    if args.judge in ("http", "sdk"):
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", "--delay", str(args.delay)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert server.stdout is not None
        url = server.stdout.readline().strip()
    common = ["--concurrency", str(args.concurrency), "--delay", str(args.delay)]
    try:
        print(
            f"{CRITERIA} criteria per item, concurrency {args.concurrency}, "
            f"reply delay {args.delay * 1000:.0f} ms, judge: {args.judge}"
        )
        results = []
        for n in args.items:
            extra = ["--url", url] if url else []
            r = _child("--one", "--items", str(n), "--judge", args.judge, *common, *extra)
            results.append(r)
            print(_line(r), flush=True)
        if args.judge == "http" and url is not None and not args.no_bounds:
            n = str(args.items[0])
            at = ["--items", n, *common]
            sdk = _child("--one", "--judge", "sdk", "--url", url, *at)
            stub = _child("--one", "--judge", "stub", *at)
            probe = _child("--probe", str(server.pid), "--url", url, *at)
            ideal = args.concurrency / args.delay
            for text in explain(results[0], sdk, stub, probe, ideal, os.cpu_count() or 1):
                print(text)
    finally:
        if server is not None:
            assert server.stdin is not None
            server.stdin.close()
            server.wait(timeout=10)


if __name__ == "__main__":
    main()
