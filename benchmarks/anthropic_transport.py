"""Should the Anthropic judge leave its SDK for aiohttp? Client CPU per call, side by side.

Against an aiohttp server answering every Messages call with the test suite's
tool-call reply (in a child process, so it does not share our GIL; keep-alive, unlike
the stdlib stand-in the tests use), the same requests are made three ways, in alternating rounds:

* ``sdk``: rubricjudge's ``anthropic/`` backend as shipped (the official SDK, httpx);
* ``sdk+aiohttp``: the same backend with the SDK's own aiohttp transport, when
  ``httpx-aiohttp`` is installed;
* ``aiohttp``: bare aiohttp POSTs of the same pre-serialised bodies, with the
  reply's JSON parsed: the floor any judge path pays.

It prints calls per second (bounded by the one-process server, so compare the CPU
column) and this process's CPU time per call.

Run: python benchmarks/anthropic_transport.py [--calls N] [--concurrency C] [--rounds R]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent  # the repository root: tests.support imports from it
SERVER = f"""
import asyncio, json, sys, threading
sys.path.insert(0, {str(ROOT)!r})
from aiohttp import web
from tests.support.anthropic_server import tool_use

async def messages(request):
    body = await request.json()
    name = (body.get("tool_choice") or {{}}).get("name", "judgment")
    return web.json_response(tool_use({{"verdict": "MET", "reason": "ok"}}, name=name))

async def main():
    app = web.Application()
    app.router.add_post("/v1/messages", messages)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    print(f"http://127.0.0.1:{{port}}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)

asyncio.run(main())
"""

SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["MET", "UNMET", "CANNOT_ASSESS"]},
        "reason": {"type": "string"},
    },
    "required": ["verdict", "reason"],
}


def _request(i: int) -> Any:
    from rubricjudge._judges._base import JudgeRequest

    return JudgeRequest(
        system="You judge one criterion.",
        user=f"<submission>answer {i}</submission> Is the answer correct?",
        schema=SCHEMA,
        schema_name="judgment",
        shared_prefix_chars=30,
    )


async def _drive(n: int, concurrency: int, one: Callable[[int], Awaitable[Any]]) -> None:
    sem = asyncio.Semaphore(concurrency)

    async def task(i: int) -> None:
        async with sem:
            await one(i)

    await asyncio.gather(*(task(i) for i in range(n)))


async def _measure(
    n: int, concurrency: int, one: Callable[[int], Awaitable[Any]]
) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    await _drive(n, concurrency, one)
    return n / (time.perf_counter() - wall), (time.process_time() - cpu) / n * 1000


async def main_async(args: argparse.Namespace, base_url: str) -> None:
    import aiohttp

    from rubricjudge._judges._anthropic import AnthropicJudge
    from rubricjudge._judges._base import JudgeConfig

    cfg = JudgeConfig(base_url=base_url, api_key="k", timeout_s=30.0)
    sdk = AnthropicJudge("claude-bench", cfg)
    ways: dict[str, Callable[[int], Awaitable[Any]]] = {"sdk": lambda i: sdk.judge(_request(i))}
    try:
        import anthropic

        aio = AnthropicJudge("claude-bench", cfg)
        aio._fixed = anthropic.AsyncAnthropic(  # the SDK's aiohttp transport
            api_key="k",
            base_url=base_url,
            max_retries=0,
            http_client=anthropic.DefaultAioHttpClient(),
        )
        ways["sdk+aiohttp"] = lambda i: aio.judge(_request(i))
    except (ImportError, RuntimeError, AttributeError) as e:
        print(f"(sdk+aiohttp skipped: {e})")

    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=args.concurrency))
    headers = {
        "x-api-key": "k",
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
    }
    bodies = [json.dumps(_params(sdk, i)).encode() for i in range(args.calls)]

    async def bare(i: int) -> Any:
        async with session.post(f"{base_url}/v1/messages", data=bodies[i], headers=headers) as r:
            return json.loads(await r.read())

    ways["aiohttp"] = bare
    results: dict[str, list[tuple[float, float]]] = {k: [] for k in ways}
    for one in ways.values():  # warm up connections and imports
        await _measure(min(50, args.calls), args.concurrency, one)
    for _ in range(args.rounds):
        for name, one in ways.items():
            results[name].append(await _measure(args.calls, args.concurrency, one))
    await session.close()
    if "sdk+aiohttp" in ways:
        await aio._fixed.close()
    print(f"{args.calls} calls, concurrency {args.concurrency}, {args.rounds} alternating rounds")
    print(f"{'path':12} {'calls/s':>9} {'client CPU ms/call':>19}")
    floor = statistics.median(c for _, c in results["aiohttp"])
    for name, rows in results.items():
        rate = statistics.median(r for r, _ in rows)
        cpu = statistics.median(c for _, c in rows)
        print(f"{name:12} {rate:9.0f} {cpu:12.3f} ({cpu / floor:4.1f}x)")


def _params(judge: Any, i: int) -> dict[str, Any]:
    params = judge.params(_request(i))
    params.pop("timeout", None)
    return params


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        asyncio.run(main_async(args, base_url))
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
