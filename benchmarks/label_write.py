"""How long ``rubricjudge label`` takes to answer one label, by dataset size and format.

Every POST /api/labels rewrites the whole dataset file (temp file, fsync, rename,
fsync of the directory) and checks it loads before answering, so its time grows
with the file. This measures the round trip through the real server over HTTP
on 127.0.0.1: median and 95th percentile of N labels, for datasets of 100, 1,000
and 10,000 items with four criteria, in JSON, JSON Lines and YAML.

    python benchmarks/label_write.py [--sizes 100 1000 10000] [--labels 50]
        [--kinds json jsonl yaml]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

CLI = [sys.executable, "-m", "rubricjudge._cli.main"]
RUBRIC = [
    {"name": f"c{k}", "weight": 1, "requirement": f"Meets requirement number {k}"} for k in range(4)
]


def write(path: Path, n: int, kind: str) -> None:
    items = [
        {"id": f"i{i:05d}", "submission": f"answer {i} " + "words " * 60, "metadata": {"k": i}}
        for i in range(n)
    ]
    header = {"prompt": "Explain it", "rubric": RUBRIC}
    if kind == "jsonl":
        lines = [json.dumps(header), *(json.dumps(it) for it in items)]
        path.write_text("\n".join(lines) + "\n")
    elif kind == "yaml":
        import yaml

        path.write_text("# a dataset\n" + yaml.safe_dump({**header, "items": items}, width=100))
    else:
        path.write_text(json.dumps({**header, "items": items}, indent=2))


def post(url: str, body: dict[str, object]) -> None:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=120) as r:
        r.read()


def measure(n: int, kind: str, labels: int, work: Path) -> tuple[float, float, float]:
    path = work / f"ds-{n}.{kind}"
    write(path, n, kind)
    server = subprocess.Popen(
        [*CLI, "label", str(path), "--port", "0", "--order", "random"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip() + "api/labels"
        times = []
        for k in range(labels):
            body = {"item_id": f"i{(k * 7919) % n:05d}", "labels": {f"c{k % 4}": "MET"}}
            t = time.perf_counter()
            post(url, body)
            times.append(time.perf_counter() - t)
    finally:
        server.kill()
        server.wait()
    times.sort()
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    return statistics.median(times), p95, path.stat().st_size / 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    ap.add_argument("--labels", type=int, default=50)
    ap.add_argument("--kinds", nargs="+", default=["json", "jsonl", "yaml"])
    args = ap.parse_args()
    print("| items | format | file MB | median ms | p95 ms |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.kinds:
            for n in args.sizes:
                med, p95, mb = measure(n, kind, args.labels, Path(tmp))
                print(f"| {n:,} | {kind} | {mb:.1f} | {med * 1000:.0f} | {p95 * 1000:.0f} |")


if __name__ == "__main__":
    main()
