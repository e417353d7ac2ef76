"""``rubricjudge grade`` beside ``rubricjudge evaluate``: calls per second, same server, one run.

Both commands run as real subprocesses against ``tests/support/chat_server.py`` (in its own
process) with the OpenAI judge: N items x 1 criterion, each with the response cache
on (a fresh file) and off. Issue 16 measured, before the two shared an engine,
``grade`` at 937 calls/s for 1,000 items and 624 for 10,000 against an instant
server, ``evaluate`` at 1,683 and 1,909; and ``grade --concurrency 64`` keeping only
32 calls in flight against a 50 ms server. This prints the same figures today.

    python benchmarks/grade_vs_evaluate.py                       # 1,000 and 10,000 items
    python benchmarks/grade_vs_evaluate.py --items 1000 --delay 0.05
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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


def _files(tmp: Path, n: int) -> tuple[Path, Path, Path]:
    rubric = tmp / "rubric.yaml"
    rubric.write_text("- name: c\n  weight: 1\n  requirement: The answer is polite.\n")
    lines = tmp / f"in-{n}.jsonl"
    with lines.open("w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"i{i}", "submission": f"Answer number {i}."}) + "\n")
    dataset = tmp / f"ds-{n}.jsonl"
    with dataset.open("w") as f:
        f.write(
            json.dumps(
                {
                    "prompt": "Answer.",
                    "rubric": [
                        json.loads(
                            '{"name": "c", "weight": 1, "requirement": "The answer is polite."}'
                        )
                    ],
                }
            )
            + "\n"
        )
        for i in range(n):
            f.write(json.dumps({"id": f"i{i}", "submission": f"Answer number {i}."}) + "\n")
    return rubric, lines, dataset


def _run(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} failed:\n{done.stderr[-2000:]}")
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--delay", type=float, default=0.0, help="server reply delay (s)")
    args = ap.parse_args()
    server, url = _server(args.delay)
    cli = [sys.executable, "-m", "rubricjudge._cli.main"]
    judge = ["--judge", "openai/bench", "--base-url", url, "--concurrency", str(args.concurrency)]
    ideal = f", ideal {args.concurrency / args.delay:.0f}/s" if args.delay else ""
    print(
        f"1 criterion per item, concurrency {args.concurrency}, delay {args.delay * 1e3:.0f} ms"
        f"{ideal}; calls per second (wall time of the whole command, start-up included)"
    )
    print(f"{'items':>7} {'command':<9} {'cache on':>9} {'cache off':>10}  (of ideal, off)")
    try:
        with tempfile.TemporaryDirectory() as tmp_s:
            tmp = Path(tmp_s)
            for n in args.items:
                rubric, lines, dataset = _files(tmp, n)
                both: dict[str, list[float]] = {}
                for name in ("grade", "evaluate"):
                    rates = both[name] = []
                    for cache in ("on", "off"):
                        env = {
                            **os.environ,
                            "OPENAI_API_KEY": "x",
                            "RUBRICJUDGE_CACHE_DIR": str(tmp / f"cache-{name}-{n}-{cache}"),
                        }
                        off = ["--no-cache"] if cache == "off" else []
                        if name == "grade":
                            cmd = [
                                *cli,
                                "grade",
                                str(rubric),
                                str(lines),
                                "-o",
                                str(tmp / "out.jsonl"),
                                *judge,
                                *off,
                            ]
                        else:
                            cmd = [*cli, "evaluate", str(dataset), *judge, *off, "--json"]
                        rates.append(n / _run(cmd, env))
                    share = (
                        f"  ({rates[1] * args.delay / args.concurrency:.2f})" if args.delay else ""
                    )
                    print(f"{n:>7} {name:<9} {rates[0]:>9.0f} {rates[1]:>10.0f}{share}", flush=True)
                g, e = both["grade"], both["evaluate"]
                print(
                    f"{n:>7} grade/evaluate {g[0] / e[0]:.2f} (cache on), "
                    f"{g[1] / e[1]:.2f} (cache off); target: within 10% (>= 0.90)",
                    flush=True,
                )
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
