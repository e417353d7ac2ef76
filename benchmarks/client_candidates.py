"""Issue 39's suspects in the judges' HTTP client, each measured on its own, in one run.

Against the scripted chat server (its own process, replying at once), one event loop
posts the same chat-completions body N times, 64 in flight, through:

- ``bare``: one aiohttp session, ``session.post`` and ``read`` (the floor);
- ``endpoint``: rubricjudge's ``Endpoint.post`` as it is now (size cap, redirects,
  stale-connection retry, error mapping);
- ``+trace``: the same on a session with a tracing hook (aiohttp then awaits its
  signal sends on every request: how the client told a reused connection before);
- ``+timeout``: the same with an ``aiohttp.ClientTimeout`` built per call.

Rounds alternate between the variants; the median CPU per call of each is printed with
its ratio to ``bare``. Then the per-process and per-event-loop costs: building the CA
bundle's TLS context, and opening and closing one loop's sessions (now: one plain
session for ``http://`` on loopback; before: a proxied and a direct session, each with
the CA bundle). The response cache's per-call costs and the run store's writes are
measured with ``--store`` (no server needed): a lookup, a write, and a run store commit
with 64 calls awaiting at once: one transaction per judgment on the loop
(``put_judgment``) beside grouped on its writer thread (``commit_judgment``, as
``evaluate`` commits).

    python benchmarks/client_candidates.py [--calls 2000] [--rounds 5] [--store]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def _body() -> bytes:
    from rubricjudge._graders._criterion_prompts import criterion_schema
    from rubricjudge._model._rubric import Criterion

    schema = criterion_schema(Criterion(name="c", requirement="r"))
    fmt = {"type": "json_schema", "json_schema": {"name": "j", "schema": schema, "strict": True}}
    return json.dumps(
        {
            "model": "bench",
            "messages": [
                {"role": "system", "content": "You grade. " * 100},
                {"role": "user", "content": "Answer number 1. " * 20},
            ],
            "response_format": fmt,
        }
    ).encode()


async def http_variants(url: str, calls: int, rounds: int) -> dict[str, list[float]]:
    """CPU seconds per call of each variant, one entry per round."""
    import aiohttp

    from rubricjudge._judges._http import Endpoint, _timeout
    from rubricjudge._judges._http_sessions import connector_class

    body = _body()
    endpoint = Endpoint(url + "/chat/completions", {"Authorization": "Bearer x"})
    gate = asyncio.Semaphore(64)
    bare = aiohttp.ClientSession()
    trace = aiohttp.TraceConfig()

    async def hook(_: Any, ctx: Any, __: Any) -> None:
        if ctx.trace_request_ctx is not None:
            ctx.trace_request_ctx.reused = True

    trace.on_connection_reuseconn.append(hook)
    trace.on_connection_create_end.append(hook)
    traced = aiohttp.ClientSession(
        connector=connector_class()(limit=256, keepalive_timeout=30.0), trace_configs=[trace]
    )

    async def one_bare() -> None:
        async with bare.post(endpoint.url, data=body, headers=endpoint.headers) as resp:
            await resp.read()

    async def one_endpoint() -> None:
        await endpoint.post(body, timeout_s=60)

    async def one_traced() -> None:
        await endpoint._send(traced, endpoint.url, body, _timeout(60.0))

    async def one_timeout() -> None:
        from rubricjudge._judges._http_sessions import loop_sessions

        sessions = await loop_sessions()
        timeout = aiohttp.ClientTimeout(total=60.0, sock_connect=30.0)
        await endpoint._send(sessions.plain, endpoint.url, body, timeout)

    variants: dict[str, Callable[[], Awaitable[None]]] = {
        "bare": one_bare,
        "endpoint": one_endpoint,
        "+trace": one_traced,
        "+timeout": one_timeout,
    }

    async def limited(fn: Callable[[], Awaitable[None]]) -> None:
        async with gate:
            await fn()

    out: dict[str, list[float]] = {name: [] for name in variants}
    for fn in variants.values():  # warm-up: connections open, code paths hot
        await asyncio.gather(*(limited(fn) for _ in range(200)))
    for _ in range(rounds):
        for name, fn in variants.items():
            cpu = time.process_time()
            await asyncio.gather(*(limited(fn) for _ in range(calls)))
            out[name].append((time.process_time() - cpu) / calls)
    await bare.close()
    await traced.close()
    return out


def loop_costs(rounds: int) -> dict[str, float]:
    """Per process: the CA bundle's context; per event loop: its sessions, now and before."""
    import aiohttp

    from rubricjudge._judges import _http_sessions

    cpu = time.process_time()
    _http_sessions._ssl_context.cache_clear()
    _http_sessions._ssl_context()
    tls = time.process_time() - cpu

    async def now() -> None:
        sessions = _http_sessions.Sessions()
        assert sessions.plain is not None
        await sessions.close()

    async def before() -> None:
        made = []
        for trust_env in (True, False):
            connector = aiohttp.TCPConnector(
                limit=256, ssl=_http_sessions._ssl_context(), keepalive_timeout=30.0
            )
            made.append(aiohttp.ClientSession(connector=connector, trust_env=trust_env))
        for session in made:
            await session.close()

    times: dict[str, list[float]] = {"now": [], "before": []}
    for _ in range(rounds):
        for name, fn in (("now", now), ("before", before)):
            cpu = time.process_time()
            for _ in range(20):
                asyncio.run(fn())
            times[name].append((time.process_time() - cpu) / 20)
    return {
        "tls_context_ms": tls * 1e3,
        "loop_sessions_now_ms": statistics.median(times["now"]) * 1e3,
        "loop_sessions_before_ms": statistics.median(times["before"]) * 1e3,
    }


async def _commits(store: Any, keys: list[str], response: Any, grouped: bool) -> None:
    """Commit a judgment per key as a run does: 64 calls at once, each awaiting its commit.

    ``grouped``: through the store's writer thread (``commit_judgment``, as ``evaluate``
    commits now); else one transaction each on the loop (``put_judgment``, as before).
    """
    gate = asyncio.Semaphore(64)

    async def one(i: int, key: str) -> None:
        async with gate:
            args = (f"i{i // 5}", key, 0, "openai/bench", response, '{"key":"c"}')
            if grouped:
                await store.commit_judgment(*args)
            else:
                store.put_judgment(*args)
                await asyncio.sleep(0)

    await asyncio.gather(*(one(i, key) for i, key in enumerate(keys)))


def store_costs(calls: int, rounds: int) -> None:
    """The response cache's lookup and write, and the run store's commit, per call."""
    from rubricjudge._judges._base import JudgeResponse
    from rubricjudge._judges._cache import ResponseCache
    from rubricjudge._model._reports import TokenUsage
    from rubricjudge._runs._store import RunStore

    usage = TokenUsage(prompt_tokens=300, completion_tokens=50, total_tokens=350)
    response = JudgeResponse(
        data={"reason": "r" * 200, "verdict": "MET"}, raw_text="t" * 250, usage=usage
    )
    results: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            cache = ResponseCache(Path(tmp) / f"cache-{r}.sqlite3")
            keys = [f"{r:02d}{i:062x}" for i in range(calls)]
            cpu = time.process_time()
            for key in keys:
                cache.get(key)
            results.setdefault("cache get (miss)", []).append(time.process_time() - cpu)
            cpu = time.process_time()
            for key in keys:
                cache.put(
                    key, judge="openai/bench", model="bench", data=response.data,
                    raw_text=response.raw_text, reasoning=None, usage=usage.model_dump(),
                )  # fmt: skip
            cache.flush()  # the writer thread's CPU is this process's too
            results.setdefault("cache put + write", []).append(time.process_time() - cpu)
            cache.close()
            for name, grouped in (("put_judgment", False), ("commit_judgment", True)):
                store = RunStore(Path(tmp) / f"{name}-{r}")
                cpu = time.process_time()
                asyncio.run(_commits(store, keys, response, grouped))
                store.close()  # the writer thread's CPU is this process's too
                results.setdefault(f"run store {name}", []).append(time.process_time() - cpu)
    for name, values in results.items():
        print(f"  {name:<26} {statistics.median(values) / calls * 1e6:7.1f} us CPU per call")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--store", action="store_true", help="the cache and run store only")
    args = ap.parse_args()
    print(f"at start {_load()}")
    if args.store:
        store_costs(args.calls, args.rounds)
        print(f"at end {_load()}")
        return
    here = Path(__file__).with_name("batch_throughput.py")
    server = subprocess.Popen(
        [sys.executable, str(here), "--serve", "--delay", "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    url = server.stdout.readline().strip()
    try:
        per_call = asyncio.run(http_variants(url, args.calls, args.rounds))
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    base = statistics.median(per_call["bare"])
    print(f"{args.calls} calls x {args.rounds} interleaved rounds, 64 in flight; at end {_load()}")
    for name, values in per_call.items():
        m = statistics.median(values)
        print(f"  {name:<10} {m * 1e6:7.1f} us CPU per call   {m / base:5.2f}x bare aiohttp")
    costs = loop_costs(args.rounds)
    print(
        f"  CA bundle TLS context: {costs['tls_context_ms']:.1f} ms once per process "
        f"(now only when an https:// or proxied endpoint is used)\n"
        f"  one event loop's sessions opened and closed: "
        f"now {costs['loop_sessions_now_ms']:.2f} ms, "
        f"before {costs['loop_sessions_before_ms']:.2f} ms"
    )


if __name__ == "__main__":
    main()
