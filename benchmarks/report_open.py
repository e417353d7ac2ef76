"""How long a run's HTML report takes to write and to use in headless Chromium.

Run: ``python benchmarks/report_open.py [--items 10000]``. Builds a synthetic run of
N items (four criteria each, reasons, confidences, token probabilities) as a
``grade`` JSONL file, writes its report, and opens it in Debian's chromium
(Playwright, no download). It times: opening until the item table is drawn, a
search that narrows the table, and opening one item. 100 items are timed beside
it in the same run, so the two rows compare.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from pathlib import Path

from rubricjudge import Criterion, CriterionReport, CriterionVerdict, EvaluationReport
from rubricjudge._report._write import write_report
from rubricjudge.reports import TokenUsage

CRITERIA = [
    Criterion(name=f"c{i}", weight=1 if i < 3 else -1, requirement=f"Requirement number {i}")
    for i in range(4)
]


def synthetic(path: Path, n: int) -> None:
    rng = random.Random(0)
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            leaves = []
            for c in CRITERIA:
                p = rng.random()
                leaves.append(
                    CriterionReport(
                        criterion=c,
                        verdict=CriterionVerdict.MET if p > 0.5 else CriterionVerdict.UNMET,
                        reason="because " * rng.randint(3, 12),
                        confidence=max(p, 1 - p),
                        probabilities={"MET": p, "UNMET": 1 - p},
                        llm_invocation={"judge": "local", "latency_s": rng.random()},
                    )
                )
            report = EvaluationReport(
                score=rng.random(),
                report=leaves,
                id=f"item-{i}",
                judge_calls=4,
                token_usage=TokenUsage(prompt_tokens=300, total_tokens=301),
                completion_cost=0.0,
            )
            f.write(json.dumps(report.to_jsonable()) + "\n")


FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def browser_times(html: Path, chromium: str) -> tuple[float, float, float]:
    """Seconds to open the page, to narrow the table by a search, and to open an item."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        page = browser.new_page()
        start = time.perf_counter()
        page.goto(html.as_uri())
        page.wait_for_selector("#items tbody tr")
        opened = time.perf_counter() - start
        start = time.perf_counter()
        page.fill("#filter", "item-99")
        page.wait_for_function("document.querySelectorAll('#items tbody tr').length <= 111")
        searched = time.perf_counter() - start
        start = time.perf_counter()
        page.click("#items tbody tr button")
        page.wait_for_selector("#detail h3")
        item = time.perf_counter() - start
        browser.close()
    return opened, searched, item


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=10_000)
    args = ap.parse_args()
    chromium = shutil.which("chromium")
    root = Path(tempfile.mkdtemp())
    rows = []
    for n in (100, args.items):
        src = root / f"run{n}.jsonl"
        synthetic(src, n)
        start = time.perf_counter()
        out = write_report(src, root / f"report{n}.html")
        written = time.perf_counter() - start
        nan = float("nan")
        times = browser_times(out, chromium) if chromium else (nan, nan, nan)
        rows.append((n, out.stat().st_size / 1e6, written, *times))
    print(f"{'items':>7} {'MB':>6} {'write s':>8} {'open s':>7} {'search s':>9} {'item s':>7}")
    for n, mb, w, o, f, i in rows:
        print(f"{n:7d} {mb:6.1f} {w:8.2f} {o:7.2f} {f:9.3f} {i:7.3f}")
    if chromium is None:
        print("chromium not found: open times not measured")


if __name__ == "__main__":
    main()
