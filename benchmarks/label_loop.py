"""The labelling loop end to end: grade, label 30 in the order the page offers, calibrate, compare.

Takes a labelled benchmark dataset, hides its labels, grades it with the judge,
then plays a labeller through ``rubricjudge label``'s own HTTP API: 30 items in
the page's order, each answered with the label the dataset's authors wrote (the
"person" here is the held-back ground truth, so the figures are reproducible).
It then runs ``rubricjudge calibrate`` on those 30 items and ``rubricjudge
metrics`` on the items nobody labelled, before and after calibration. Once with
``--order uncertain`` and once with ``--order random``.

    python benchmarks/label_loop.py [--data authored_mixed] [--judge local] [--labels 30]

Prints each step's command, the time it took, and the agreement figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CLI = [sys.executable, "-m", "rubricjudge._cli.main"]


def sh(args: list[str], cwd: Path) -> str:
    t = time.perf_counter()
    out = subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - t
    print(f"$ rubricjudge {' '.join(args)}   ({took:.0f} s)", flush=True)
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        raise SystemExit(f"failed: {args}")
    return out.stdout + out.stderr


def call(url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    if body is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def label(work: Path, dataset: Path, truth: dict[str, dict[str, Any]], order: str, n: int) -> None:
    server = subprocess.Popen(
        [
            *CLI,
            "label",
            str(dataset),
            "--run-dir",
            "runs/raw",
            "--order",
            order,
            "--port",
            "0",
            "--labeller",
            "replay",
        ],
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        t = time.perf_counter()
        for _ in range(n):
            item = call(url + "api/next")
            if item["item_id"] is None:
                break
            call(url + "api/labels", {"item_id": item["item_id"], "labels": truth[item["item_id"]]})
        took = time.perf_counter() - t
        print(f"  labelled {n} items ({order} order) through the API in {took:.2f} s", flush=True)
        print(f"  calibration then: {item['calibration']}", flush=True)
    finally:
        server.kill()
        server.wait()


def pooled(text: str) -> str:
    """Accuracy and kappa pooled over binary criteria, before -> after calibration."""
    found = re.findall(r"^\(pooled[^\n]*\n\s+accuracy=(\S+).*?kappa=(\S+)", text, re.M)
    return " -> ".join(f"accuracy {a}, kappa {k}" for a, k in found)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="authored_mixed")
    ap.add_argument("--judge", default="local")
    ap.add_argument("--labels", type=int, default=30)
    ap.add_argument("--orders", nargs="+", default=["uncertain", "random"])
    ap.add_argument("--keep", help="work in this directory (kept) instead of a temporary one")
    args = ap.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="label-loop-"))
    work.mkdir(parents=True, exist_ok=True)
    source = HERE / "data" / f"{args.data}.json"
    full = json.loads(source.read_text())
    truth = {
        it["id"]: dict(
            zip(
                [c.get("name") or c.get("id") for c in it["rubric"]["criteria"]],
                it["ground_truth"],
                strict=True,
            )
        )
        for it in full["items"]
    }
    shutil.copy(source, work / "truth.json")
    blank = dict(full, items=[{**it, "ground_truth": None} for it in full["items"]])
    (work / "blank.json").write_text(json.dumps(blank, indent=2, ensure_ascii=False))
    print(f"# {args.data}: {len(full['items'])} items, judge {args.judge}, work in {work}")
    os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(HERE / ".cache"))
    sh(["evaluate", "blank.json", "--judge", args.judge, "--run-dir", "runs/raw"], work)
    for order in args.orders:
        print(f"\n## --order {order}")
        dataset = work / f"labelled-{order}.json"
        shutil.copy(work / "blank.json", dataset)
        label(work, dataset, truth, order, args.labels)
        cal = f"cal-{order}.json"
        out = sh(
            [
                "calibrate",
                dataset.name,
                "--judge",
                args.judge,
                "--train",
                str(args.labels),
                "-o",
                cal,
            ],
            work,
        )
        print("  " + "\n  ".join(line for line in out.splitlines() if "labels" in line))
        sh(
            [
                "evaluate",
                "blank.json",
                "--judge",
                args.judge,
                "--calibration",
                cal,
                "--run-dir",
                f"runs/{order}",
            ],
            work,
        )
        text = sh(
            ["metrics", f"runs/{order}", "--dataset", "truth.json", "--calibration", cal], work
        )
        print("  on the items it left unlabelled: " + pooled(text))
    trained: set[str] = set()
    for order in args.orders:
        trained |= set(json.loads((work / f"cal-{order}.json").read_text())["train_ids"])
    (work / "trained.json").write_text(json.dumps(sorted(trained)))
    print(f"\n## on the {len(full['items']) - len(trained)} items no order labelled")
    for order in args.orders:
        text = sh(
            [
                "metrics",
                f"runs/{order}",
                "--dataset",
                "truth.json",
                "--exclude-ids",
                "trained.json",
            ],
            work,
        )
        print(f"  {order}: " + pooled(text))
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
