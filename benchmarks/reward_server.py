"""Reward throughput: rollouts graded per second by ``serve``'s /get_reward and by RubricReward.

A 6-criterion rubric; the judge is ``openai/bench`` against ``tests/support/chat_server.py``
answering every call after ``--delay`` (50 ms), each in its own process; the
judge makes at most ``--concurrency`` (64) calls at once and the response cache is
off, so every rollout costs 6 real calls. The ideal is concurrency / delay judge
calls a second, i.e. that over 6 rewards a second.

Measured side by side in one run:

1. ``rubricjudge serve --rubric`` (its own process) answering ``--requests`` (10)
   OpenRLHF-style requests of ``--rollouts`` (1,024) queries each, one after the
   other: rewards/s, fraction of ideal, p50/p99 request latency, and the server's
   resident memory after each request (flat: a batch leaves nothing behind).
2. The same server with OpenRLHF's current client pattern: one query per request,
   ``--clients`` (128) requests in flight at once.
3. ``RubricReward`` (TRL's reward function) in this process, called ``--requests``
   times with ``--rollouts`` completions: rewards/s, this process's CPU per reward
   and its memory.
4. The ceiling of the machine at that moment: the judge server driven by a raw-socket
   client that costs almost nothing (``batch_throughput.probe_server``), as rewards/s.
   On a machine busy with other work this is below the ideal, and the rows above
   can be read against it.

    python benchmarks/reward_server.py
    python benchmarks/reward_server.py --rollouts 256 --requests 4    # quicker
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CRITERIA = 6


def _rss_mib(pid: int | None = None) -> float:
    with open(f"/proc/{pid or 'self'}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def serve_chat(delay: float) -> None:
    """Run the chat server (own process, so it does not share our GIL)."""
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


def _rubric(tmp: Path) -> Path:
    lines = ["format: rubricjudge/1", "name: bench", "criteria:"]
    for i in range(CRITERIA):
        lines += [f"- name: c{i}", f"  requirement: The answer meets requirement {i}."]
    path = tmp / "bench.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_server(rubric: Path, chat_url: str, concurrency: int, rollouts: int, log: Any) -> Any:
    port = _free_port()
    cmd = [
        sys.executable, "-m", "rubricjudge._cli.main", "serve", "--rubric", str(rubric),
        "--judge", "openai/bench", "--base-url", chat_url, "--no-cache", "--no-auth",
        "--port", str(port), "--concurrency", str(concurrency),
        "--judge-concurrency", str(concurrency), "--max-batch", str(max(rollouts, 64)),
        "--max-body-bytes", str(64 * 2**20),
    ]  # fmt: skip
    # the server's log goes to a file: a pipe nobody reads would fill and stall the server
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, text=True)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.1):
                return proc, url
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit(
        f"the reward server did not start: {proc.stderr.read() if proc.stderr else ''}"
    )


def _queries(n: int, round_no: int) -> dict[str, Any]:
    prompt = "<|im_start|>user\nExplain why the sky is blue.<|im_end|>\n<|im_start|>assistant\n"
    answers = [
        f"Answer {round_no}-{i}: sunlight scatters off air molecules. " * 8 for i in range(n)
    ]
    return {"query": [prompt + a for a in answers], "prompts": [prompt] * n}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def batched(url: str, rollouts: int, requests: int, pid: int) -> dict[str, Any]:
    import aiohttp

    latencies, memory = [], []
    cpu = _cpu_s(pid)
    timeout = aiohttp.ClientTimeout(total=600)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        start = time.perf_counter()
        for r in range(requests):
            t = time.perf_counter()
            async with session.post(f"{url}/get_reward", json=_queries(rollouts, r)) as resp:
                body = await resp.json()
            latencies.append(time.perf_counter() - t)
            assert resp.status == 200, body
            assert len(body["rewards"]) == rollouts and not any(body["failed"])
            assert body["usage"]["judge_calls"] == rollouts * CRITERIA, body["usage"]
            memory.append(_rss_mib(pid))
        wall = time.perf_counter() - start
    return {
        "rate": rollouts * requests / wall,
        "latencies": latencies,
        "memory": memory,
        "server_cpu_ms": (_cpu_s(pid) - cpu) / (rollouts * requests) * 1e3,
    }


async def single(url: str, rollouts: int, clients: int, pid: int) -> dict[str, Any]:
    import aiohttp

    latencies: list[float] = []
    cpu = _cpu_s(pid)
    todo = iter(range(rollouts))
    timeout = aiohttp.ClientTimeout(total=600)
    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:

        async def client() -> None:
            for i in todo:
                t = time.perf_counter()
                async with session.post(f"{url}/get_reward", json=_queries(1, 100 + i)) as resp:
                    body = await resp.json()
                assert resp.status == 200 and len(body["rewards"]) == 1, body
                latencies.append(time.perf_counter() - t)

        start = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        wall = time.perf_counter() - start
    server_cpu_ms = (_cpu_s(pid) - cpu) / rollouts * 1e3
    return {"rate": rollouts / wall, "latencies": latencies, "server_cpu_ms": server_cpu_ms}


def trl_adapter(chat_url: str, rubric: Path, rollouts: int, requests: int, conc: int) -> dict:
    from rubricjudge import CriterionGrader
    from rubricjudge._judges._registry import get_judge
    from rubricjudge.rewards import RubricReward

    judge = get_judge("openai/bench", base_url=chat_url, concurrency=conc, cache=False)
    reward = RubricReward(
        str(rubric), CriterionGrader(judge=judge, concurrency=conc), concurrency=conc
    )
    memory, latencies = [], []
    cpu = time.process_time()
    start = time.perf_counter()
    for r in range(requests):
        body = _queries(rollouts, 1000 + r)
        t = time.perf_counter()
        out = reward(prompts=body["prompts"], completions=body["query"])
        latencies.append(time.perf_counter() - t)
        assert len(out) == rollouts and None not in out
        memory.append(_rss_mib())
    wall = time.perf_counter() - start
    cpu_ms = (time.process_time() - cpu) / (rollouts * requests) * 1e3
    assert reward.stats.failures == 0
    return {
        "rate": rollouts * requests / wall,
        "latencies": latencies,
        "memory": memory,
        "cpu_ms": cpu_ms,
    }


def _line(name: str, res: dict[str, Any], ideal: float) -> str:
    lat = res["latencies"]
    text = (
        f"{name}: {res['rate']:6.1f} rewards/s of ideal {ideal:.1f} = {res['rate'] / ideal:.2f}   "
        f"request latency p50 {_pct(lat, 50):.3f}s p99 {_pct(lat, 99):.3f}s"
    )
    if "server_cpu_ms" in res:
        text += f"   server CPU {res['server_cpu_ms']:.2f} ms per reward"
    if "cpu_ms" in res:
        text += f"   client CPU {res['cpu_ms']:.2f} ms per reward"
    if "memory" in res:
        mem = res["memory"]
        text += f"\n    resident memory after each call (MiB): {', '.join(f'{m:.0f}' for m in mem)}"
        text += f"  (growth from the 2nd to the last: {mem[-1] - mem[1]:+.1f} MiB)"
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--serve-chat", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--rollouts", type=int, default=1024, help="rollouts per request")
    ap.add_argument("--requests", type=int, default=10, help="requests (and TRL calls)")
    ap.add_argument("--concurrency", type=int, default=64, help="judge calls at once")
    ap.add_argument("--clients", type=int, default=128, help="single-query requests in flight")
    ap.add_argument("--delay", type=float, default=0.05, help="the judge server's reply delay")
    args = ap.parse_args()
    if args.serve_chat:
        serve_chat(args.delay)
        return
    ideal = args.concurrency / args.delay / CRITERIA
    chat = subprocess.Popen(
        [sys.executable, __file__, "--serve-chat", "--delay", str(args.delay)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert chat.stdout is not None
    chat_url = chat.stdout.readline().strip()
    print(
        f"{args.rollouts} rollouts x {CRITERIA} criteria per request, judge server "
        f"{args.delay * 1e3:.0f} ms per call, {args.concurrency} judge calls at once, "
        f"response cache off; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        rubric = _rubric(Path(tmp))
        log_path = Path(tmp) / "server.log"
        log = log_path.open("w")
        server, url = _start_server(rubric, chat_url, args.concurrency, args.rollouts, log)
        try:
            res = asyncio.run(batched(url, args.rollouts, args.requests, server.pid))
            print(_line(f"serve /get_reward, {args.requests} requests", res, ideal), flush=True)
            res = asyncio.run(single(url, args.rollouts, args.clients, server.pid))
            print(
                _line(f"serve /get_reward, 1 query x {args.rollouts} requests", res, ideal),
                flush=True,
            )
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=30)
            log.close()
        batches = [line for line in log_path.read_text().splitlines() if "/get_reward" in line]
        if batches:
            print(f"    the server's log, first batch: {batches[0].split('/get_reward', 1)[1]}")
        res = trl_adapter(chat_url, rubric, args.rollouts, args.requests, args.concurrency)
        print(_line(f"RubricReward in-process, {args.requests} calls", res, ideal), flush=True)
    from batch_throughput import probe_server

    probe = probe_server(chat_url, args.concurrency, args.rollouts * CRITERIA, chat.pid)
    ceiling = probe["requests_per_s"] / CRITERIA
    print(
        f"the machine's ceiling now (raw-socket client, same server): {ceiling:.1f} rewards/s "
        f"= {ceiling / ideal:.2f} of ideal",
        flush=True,
    )
    assert chat.stdin is not None
    chat.stdin.close()
    chat.wait(timeout=30)


if __name__ == "__main__":
    main()
