"""Client cost per judgment: rubricjudge beside bare aiohttp, the openai SDK and autorubric.

Issue 39's table, as ratios measured in one run. A scripted OpenAI-compatible server
(``tests/support/chat_server.py``, in its own process, answering every request with a reply
valid for its schema) takes the same judge calls from:

- ``evaluate``: the ``evaluate`` API, the per-criterion grader with ``openai/bench``,
  a run directory and the response cache on (a fresh, empty file): what a user gets;
- ``grade``: the ``rubricjudge grade`` command as a whole process (start-up included);
- ``aiohttp``: bare aiohttp POSTs of the same chat-completions bodies from one
  session, each reply's JSON and its content parsed: the floor of any client;
- ``sdk``: the official ``openai`` SDK's ``chat.completions.create`` (its default
  transport), the content parsed;
- ``autorubric``: only where it is installed (it is not a dependency).

Every measurement runs in a fresh child process, with its source tree's bytecode
compiled beforehand (as on a normal install, even where ``PYTHONDONTWRITEBYTECODE``
is set); repetitions are interleaved (A, B,
C, A, B, C ...) so that a change in the machine's load hits every client alike, and
the median of each is kept. Client CPU is the child's own CPU time (``getrusage``),
which other load does not inflate the way it inflates wall time; calls per second
are wall time and are only compared within one run. The load average is printed
beside the figures. ``--src LABEL=DIR`` (repeatable) adds our client from another
source tree (an old commit's ``src``, say) to the same interleaved run.

    python benchmarks/client_cost.py                          # 1,000 calls, 3 repetitions
    python benchmarks/client_cost.py --calls 10000 --reps 1   # peak RSS at 10,000 calls
    python benchmarks/client_cost.py --delay 0.05             # 50 ms x 64: share of ideal
    python benchmarks/client_cost.py --src before=/tmp/old/src --only evaluate aiohttp
    python benchmarks/client_cost.py --only evaluate aiohttp --parts   # where the CPU goes
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CRITERIA = 5
CLIENTS = ("evaluate", "grade", "aiohttp", "sdk", "autorubric")
PARTS = ("evaluate-nocache", "evaluate-norun", "evaluate-bare", "layers")
"""``--parts``: where ``evaluate``'s CPU goes. The same run with the response cache off,
without a run directory, with neither; ``layers`` is the grading layers alone (the
``fake`` judge, no HTTP, no cache, no run store)."""


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


# -- the children ----------------------------------------------------------------------


def _requests(calls: int) -> list[tuple[str, str]]:
    """(system, user) of each call: the per-criterion grader's own prompts."""
    system = "You grade one answer against one requirement. " * 20
    return [
        (system, f"Answer number {i}. " * 20 + f"Requirement {i % CRITERIA}.") for i in range(calls)
    ]


def _schema() -> dict[str, Any]:
    from rubricjudge._graders._criterion_prompts import criterion_schema
    from rubricjudge._model._rubric import Criterion

    return criterion_schema(Criterion(name="c", requirement="r"))


def _dataset(items: int) -> Any:
    from rubricjudge._datasets._dataset import DataItem
    from rubricjudge._datasets._io import RubricDataset
    from rubricjudge._model._rubric import Criterion, Rubric

    rubric = Rubric(
        [
            Criterion(name=f"c{i}", requirement=f"The answer meets requirement {i}.")
            for i in range(CRITERIA)
        ]
    )
    return RubricDataset(
        prompt="Answer the question.",
        rubric=rubric,
        items=[DataItem(submission=f"Answer number {i}. " * 20, id=f"i{i}") for i in range(items)],
    )


async def _evaluate(url: str, calls: int, concurrency: int, tmp: Path, kind: str) -> int:
    from rubricjudge._graders._criterion import CriterionGrader
    from rubricjudge._judges._registry import get_judge
    from rubricjudge._runs._evaluate import evaluate

    cache = kind not in ("evaluate-nocache", "evaluate-bare")
    run_dir = None if kind in ("evaluate-norun", "evaluate-bare", "layers") else tmp / "run"
    if kind == "layers":
        judge = get_judge("fake")
    else:
        judge = get_judge("openai/bench", base_url=url, concurrency=concurrency, cache=cache)
    grader = CriterionGrader(judge=judge, concurrency=concurrency)
    dataset = _dataset(calls // CRITERIA)
    result = await evaluate(
        dataset, grader, run_dir=run_dir, concurrency=concurrency, progress=False
    )
    failed = result.summary.items_failed + result.summary.items_with_judge_errors
    assert failed == 0, result.summary.to_text()
    return int(result.summary.judge_calls)


async def _aiohttp(url: str, calls: int, concurrency: int, schema: dict[str, Any]) -> int:
    import aiohttp

    fmt = {"type": "json_schema", "json_schema": {"name": "j", "schema": schema, "strict": True}}
    gate = asyncio.Semaphore(concurrency)
    done = 0

    async with aiohttp.ClientSession() as session:

        async def one(system: str, user: str) -> None:
            nonlocal done
            body = {
                "model": "bench",
                "messages": [
                    {"role": "system", "content": system},
                    {"role": "user", "content": user},
                ],
                "response_format": fmt,
                "temperature": 0.0,
            }
            async with gate:
                async with session.post(
                    url + "/chat/completions",
                    data=json.dumps(body).encode(),
                    headers={"Content-Type": "application/json", "Authorization": "Bearer x"},
                ) as resp:
                    reply = json.loads(await resp.read())
            json.loads(reply["choices"][0]["message"]["content"])
            done += 1

        await asyncio.gather(*(one(s, u) for s, u in _requests(calls)))
    return done


async def _sdk(url: str, calls: int, concurrency: int, schema: dict[str, Any]) -> int:
    import openai

    fmt: Any = {
        "type": "json_schema",
        "json_schema": {"name": "j", "schema": schema, "strict": True},
    }
    gate = asyncio.Semaphore(concurrency)
    done = 0
    client = openai.AsyncOpenAI(base_url=url, api_key="x", max_retries=0)

    async def one(system: str, user: str) -> None:
        nonlocal done
        async with gate:
            completion = await client.chat.completions.create(
                model="bench",
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                response_format=fmt,
                temperature=0.0,
            )
        json.loads(completion.choices[0].message.content or "")
        done += 1

    try:
        await asyncio.gather(*(one(s, u) for s, u in _requests(calls)))
    finally:
        await client.close()
    return done


def _autorubric(url: str, calls: int, concurrency: int) -> int:  # pragma: no cover - optional
    raise SystemExit("autorubric's client is not wired up here; install it to add it")


def child(kind: str, url: str, calls: int, concurrency: int) -> None:
    """One measurement in this (fresh) process; prints calls, wall and CPU as JSON."""
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        os.environ["RUBRICJUDGE_CACHE_DIR"] = str(tmp / "cache")
        # imports first: their cost is start-up, counted for `grade` only (a whole process)
        if kind.startswith("evaluate") or kind == "layers":
            import aiohttp  # noqa: F401

            import rubricjudge._graders  # noqa: F401
            import rubricjudge._runs._evaluate  # noqa: F401  (_runs exports it lazily)

            with contextlib.suppress(ImportError):  # the price table, read at the first call
                import genai_prices  # noqa: F401
        elif kind == "aiohttp":
            import aiohttp  # noqa: F401
        elif kind == "sdk":
            import openai  # noqa: F401
        # the schema comes from our prompt module: making it is not the bare client's cost
        schema = _schema() if kind in ("aiohttp", "sdk") else {}
        cpu = time.process_time()
        start = time.perf_counter()
        if kind.startswith("evaluate") or kind == "layers":
            done = asyncio.run(_evaluate(url, calls, concurrency, tmp, kind))
        elif kind == "aiohttp":
            done = asyncio.run(_aiohttp(url, calls, concurrency, schema))
        elif kind == "sdk":
            done = asyncio.run(_sdk(url, calls, concurrency, schema))
        else:
            done = _autorubric(url, calls, concurrency)
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu
    assert done == calls, (done, calls)
    print(json.dumps({"calls": done, "wall": wall, "cpu": cpu}), flush=True)


# -- the parent ------------------------------------------------------------------------


def _grade_files(tmp: Path, calls: int) -> tuple[Path, Path]:
    rubric = tmp / "rubric.yaml"
    rubric.write_text(
        "".join(
            f"- name: c{i}\n  weight: 1\n  requirement: The answer meets requirement {i}.\n"
            for i in range(CRITERIA)
        )
    )
    lines = tmp / f"in-{calls}.jsonl"
    with lines.open("w") as f:
        for i in range(calls // CRITERIA):
            f.write(json.dumps({"id": f"i{i}", "submission": f"Answer number {i}. " * 20}) + "\n")
    return rubric, lines


def _wait(proc: subprocess.Popen[str]) -> tuple[str, resource.struct_rusage]:
    out = proc.stdout.read() if proc.stdout is not None else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read() if proc.stderr is not None else ""
        raise SystemExit(f"child failed ({proc.args!r}):\n{err[-3000:]}")
    return out, usage


def _bytecode_env() -> dict[str, str]:
    """The environment with bytecode cached, as on a normal install.

    Where ``PYTHONDONTWRITEBYTECODE`` is set, a source tree without ``__pycache__``
    would be compiled again by every child, which a whole process (``grade``) pays.
    (Not ``PYTHONPYCACHEPREFIX``: the first child would then compile the standard
    library and site-packages into it, and its peak RSS doubled.)
    """
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _compile(src: str) -> None:
    subprocess.run([sys.executable, "-m", "compileall", "-q", src], env=_bytecode_env(), check=True)


def run_one(
    kind: str, src: str, url: str, calls: int, concurrency: int, tmp: Path
) -> dict[str, float]:
    env = {**_bytecode_env(), "PYTHONPATH": src, "OPENAI_API_KEY": "x"}
    env["RUBRICJUDGE_CACHE_DIR"] = tempfile.mkdtemp(dir=tmp)
    if kind == "grade":
        rubric, lines = _grade_files(tmp, calls)
        cmd = [
            sys.executable, "-m", "rubricjudge._cli.main", "grade", str(rubric), str(lines),
            "-o", str(tmp / "out.jsonl"), "--judge", "openai/bench", "--base-url", url,
            "--concurrency", str(concurrency),
        ]  # fmt: skip
    else:
        cmd = [
            sys.executable, __file__, "--child", kind, "--url", url,
            "--calls", str(calls), "--concurrency", str(concurrency),
        ]  # fmt: skip
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, usage = _wait(proc)
    wall = time.perf_counter() - start
    process_cpu = usage.ru_utime + usage.ru_stime
    if kind == "grade":
        got = {"calls": calls, "wall": wall, "cpu": process_cpu}
    else:
        got = json.loads(out.strip().splitlines()[-1])
    got["process_cpu"] = process_cpu
    got["process_wall"] = wall
    got["rss_mib"] = usage.ru_maxrss / 1024
    return got


def _server(delay: float) -> tuple[subprocess.Popen[str], str]:
    here = Path(__file__).with_name("batch_throughput.py")
    proc = subprocess.Popen(
        [sys.executable, str(here), "--serve", "--delay", str(delay)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def _installed(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=1000, help="judge calls per measurement")
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--delay", type=float, default=0.0, help="the server's reply delay (s)")
    ap.add_argument("--reps", type=int, default=3, help="interleaved repetitions")
    ap.add_argument("--only", nargs="+", choices=CLIENTS, help="measure only these clients")
    ap.add_argument(
        "--src", action="append", default=[], metavar="LABEL=DIR",
        help="also measure evaluate and grade from another source tree",
    )  # fmt: skip
    ap.add_argument("--parts", action="store_true", help="also " + ", ".join(PARTS))
    ap.add_argument("--child", choices=CLIENTS + PARTS, help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.url, args.calls, args.concurrency)
        return

    ours = str(ROOT / "src")
    trees = [("", ours)] + [tuple(s.split("=", 1)) for s in args.src]
    wanted = [k for k in (args.only or CLIENTS) if k != "autorubric" or _installed("autorubric")]
    runs: list[tuple[str, str, str]] = []  # (row label, client kind, source tree)
    for kind in wanted:
        if kind in ("evaluate", "grade"):
            runs += [(f"{kind} {label}".strip(), kind, src) for label, src in trees]
        else:
            runs.append((kind, kind, ours))
    if args.parts:
        runs += [(kind, kind, ours) for kind in PARTS]
    server, url = _server(args.delay)
    results: dict[str, list[dict[str, float]]] = {label: [] for label, _, _ in runs}
    print(
        f"{args.calls} calls ({CRITERIA} criteria per item), {args.concurrency} in flight, "
        f"reply delay {args.delay * 1e3:.0f} ms, {args.reps} interleaved repetitions, "
        f"{os.cpu_count()} cores; at start {_load()}",
        flush=True,
    )
    if "autorubric" in (args.only or CLIENTS) and not _installed("autorubric"):
        print("autorubric: not installed, left out")
    try:
        with tempfile.TemporaryDirectory() as tmp_s:
            for src in {src for _, _, src in runs}:
                _compile(src)
            for _ in range(args.reps):
                for label, kind, src in runs:
                    results[label].append(
                        run_one(kind, src, url, args.calls, args.concurrency, Path(tmp_s))
                    )
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=30)
    report(results, args)


def report(results: dict[str, list[dict[str, float]]], args: argparse.Namespace) -> None:
    """The table: medians, then ratios against bare aiohttp (and grade against evaluate)."""

    def med(label: str, key: str) -> float:
        return statistics.median(r[key] for r in results[label])

    ideal = args.concurrency / args.delay if args.delay else None
    print(f"at end {_load()}")
    head = f"{'client':<18} {'calls/s':>8} {'CPU ms/call':>12} {'process CPU ms/call':>20}"
    head += f" {'peak RSS MiB':>13}" + (f" {'of ideal':>9}" if ideal else "")
    print(head)
    for label in results:
        rate = args.calls / med(label, "wall")
        line = (
            f"{label:<18} {rate:>8.0f} {med(label, 'cpu') / args.calls * 1e3:>12.3f} "
            f"{med(label, 'process_cpu') / args.calls * 1e3:>20.3f} {med(label, 'rss_mib'):>13.1f}"
        )
        if ideal:
            line += f" {rate / ideal:>9.2f}"
        print(line)
    if "aiohttp" in results:
        base_cpu = med("aiohttp", "cpu")
        base_rate = args.calls / med("aiohttp", "wall")
        print("ratios to bare aiohttp (CPU per call: lower is better; calls/s: higher is better)")
        for label in results:
            if label == "aiohttp":
                continue
            print(
                f"  {label:<16} CPU {med(label, 'cpu') / base_cpu:5.2f}x   "
                f"calls/s {args.calls / med(label, 'wall') / base_rate:5.2f}x   "
                f"peak RSS {med(label, 'rss_mib') / med('aiohttp', 'rss_mib'):5.2f}x"
            )
    for label in results:
        if label.startswith("grade"):
            twin = "evaluate" + label[len("grade") :]
            if twin in results:
                print(
                    f"  {label} / {twin}: calls/s "
                    f"{med(twin, 'wall') / med(label, 'wall'):.2f} (grade's wall includes start-up)"
                )
    if "sdk" in results and "evaluate" in results:
        print(
            f"  evaluate / openai SDK: calls/s "
            f"{med('sdk', 'wall') / med('evaluate', 'wall'):.2f}, "
            f"CPU per call {med('evaluate', 'cpu') / med('sdk', 'cpu'):.2f}"
        )


if __name__ == "__main__":
    main()
