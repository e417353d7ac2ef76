"""What the judge layer costs on top of raw HTTP, and how long ``import rubricjudge`` takes.

Against the test chat server replying instantly (in a child process, so it does not
share our GIL), the same HTTP client (rubricjudge's ``Endpoint``, what the
``openai/`` judge sends through) makes N calls twice: raw POSTs of the same
pre-built bodies, and through ``get_judge``'s layer (cache off, retries armed,
provider limits on, request building, parsing, cost). Rounds alternate; the best
of each is kept. For reference it also times the official ``openai`` SDK's
``chat.completions.create`` on the same server.

Run: python benchmarks/judge_overhead.py [--calls N] [--concurrency C] [--rounds R]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository root: tests.support imports from it
SERVER = f"""
import sys, time
sys.path.insert(0, {str(ROOT)!r})
from tests.support.chat_server import ChatServer
s = ChatServer().start()
print(s.base_url, flush=True)
sys.stdin.read()
s.close()
"""

SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["MET", "UNMET", "CANNOT_ASSESS"]},
        "reason": {"type": "string"},
    },
    "required": ["verdict", "reason"],
    "additionalProperties": False,
}


async def bench(
    base_url: str, calls: int, concurrency: int, rounds: int
) -> tuple[list[float], list[float], float]:
    import openai

    from rubricjudge._judges._base import JudgeConfig, JudgeRequest
    from rubricjudge._judges._openai import OpenAIJudge
    from rubricjudge._judges._reliable import make_reliable

    config = JudgeConfig(base_url=base_url, api_key="bench", cache=False, concurrency=concurrency)
    bare = OpenAIJudge("bench", config)
    judge = make_reliable(bare, config, "openai", "bench")
    endpoint = bare._endpoint  # the very client the judge posts through
    requests = [
        JudgeRequest(system="You grade.", user=f"Submission {i}: the sky is blue.", schema=SCHEMA)
        for i in range(calls)
    ]
    # what OpenAIJudge sends, built once: the raw side pays nothing for building it
    bodies = [bare._params(r, True) for r in requests]
    wire = [json.dumps(b).encode() for b in bodies]
    gate = asyncio.Semaphore(concurrency)

    async def raw_post_one(content: bytes) -> None:
        async with gate:
            reply = await endpoint.post(content, timeout_s=30)
            assert json.loads(reply.body)["choices"][0]["message"]["content"]

    async def raw() -> float:
        start = time.perf_counter()
        await asyncio.gather(*(raw_post_one(b) for b in wire))
        return calls / (time.perf_counter() - start)

    async def layered() -> float:
        start = time.perf_counter()
        await asyncio.gather(*(judge.judge(r) for r in requests))
        return calls / (time.perf_counter() - start)

    sdk = openai.AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0, timeout=30)

    async def sdk_one(body: dict[str, object]) -> None:
        async with gate:
            completion = await sdk.chat.completions.create(**body)  # type: ignore[call-overload]
            assert completion.choices[0].message.content

    async def sdk_create() -> float:
        start = time.perf_counter()
        await asyncio.gather(*(sdk_one(b) for b in bodies))
        return calls / (time.perf_counter() - start)

    await raw()  # warm up connections and code paths
    await layered()
    raw_rates, layer_rates = [], []
    for i in range(rounds):  # alternate the order so drift hits both sides alike
        if i % 2:
            layer_rates.append(await layered())
            raw_rates.append(await raw())
        else:
            raw_rates.append(await raw())
            layer_rates.append(await layered())
    create_rate = max([await sdk_create() for _ in range(2)])
    await sdk.close()
    return raw_rates, layer_rates, create_rate


async def layer_only(calls: int, concurrency: int) -> float:
    """Microseconds the layer adds per call around a backend that answers instantly."""
    from rubricjudge._judges._base import JudgeConfig, JudgeRequest, JudgeResponse
    from rubricjudge._judges._reliable import Provider, ReliableJudge
    from rubricjudge._model._reports import TokenUsage

    usage = TokenUsage(prompt_tokens=10, completion_tokens=5, total_tokens=15)

    class Instant:
        name = "openai/instant"

        async def judge(self, request: JudgeRequest) -> JudgeResponse:
            return JudgeResponse(data={"verdict": "MET"}, raw_text="{}", usage=usage)

    config = JudgeConfig(cache=False, concurrency=concurrency)
    provider = Provider("openai", "instant", "bench|instant", {}, None, "http://127.0.0.1/v1")
    judge = ReliableJudge(Instant(), config, provider)
    request = JudgeRequest(system="You grade.", user="x" * 400, schema=SCHEMA)
    inner = Instant()
    start = time.perf_counter()
    await asyncio.gather(*(inner.judge(request) for _ in range(calls)))
    bare = time.perf_counter() - start
    start = time.perf_counter()
    await asyncio.gather(*(judge.judge(request) for _ in range(calls)))
    return (time.perf_counter() - start - bare) / calls * 1e6


def import_time(runs: int = 7) -> tuple[float, str]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import rubricjudge"], check=True)
        times.append(time.perf_counter() - start)
    base = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        base.append(time.perf_counter() - start)
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import rubricjudge"],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    line = next(x for x in out.splitlines() if x.rstrip().endswith("| rubricjudge"))
    cumulative_us = int(line.split("|")[1])
    heavy = [m for m in ("openai", "httpx", "aiohttp", "genai_prices", "anthropic", "llama_cpp")]
    heavy = [m for m in heavy if f"| {m}" in out]
    report = (
        f"import rubricjudge: {statistics.median(times):.3f} s wall (python -c pass: "
        f"{statistics.median(base):.3f} s); -X importtime cumulative {cumulative_us / 1e6:.3f} s; "
        f"heavy modules imported: {heavy or 'none'}"
    )
    return statistics.median(times) - statistics.median(base), report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        raws, layers, create = asyncio.run(
            bench(base_url, args.calls, args.concurrency, args.rounds)
        )
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)
    raw, layer = max(raws), max(layers)
    paired = statistics.median(r / ly for r, ly in zip(raws, layers, strict=True))
    added = asyncio.run(layer_only(20_000, args.concurrency))
    print(f"{args.calls} calls, concurrency {args.concurrency}, {args.rounds} alternating rounds")
    print(f"raw POST:         {raw:8.1f} calls/s (best)   rounds: {[round(x) for x in raws]}")
    print(f"judge layer:      {layer:8.1f} calls/s (best)   rounds: {[round(x) for x in layers]}")
    print(f"ratio raw/layer:  {raw / layer:8.2f}x best-vs-best, {paired:.2f}x median of pairs")
    print(f"layer alone adds: {added:8.1f} us per call around an instant backend")
    print(f"target: <= 1.5x; raw HTTP here takes {1e6 / raw:.0f} us per call")
    print(
        f"for reference, the openai SDK's chat.completions.create: {create:.1f} calls/s "
        f"({1e6 / create:.0f} us per call)"
    )
    seconds, report = import_time()
    print(report)
    print(f"import cost over bare python: {seconds:.3f} s (target < 0.5 s)")


if __name__ == "__main__":
    main()
