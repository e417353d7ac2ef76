"""Seconds per judged criterion of the local judge, as the agreement figures were made.

Run: ``python benchmarks/local_per_criterion.py [--ricechem DIR] [--question 4] [--answers 5]``.

Grades a few RiceChem answers (real student answers; question 4 has 6 criteria) with
the library's grader in ``verdict-only``, KV cache reused across the criteria of an
answer, with and without reading the hidden state a probe needs, after one warm-up
answer (model load excluded). Issue 22's target: 1.5 s per criterion on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _realdata import ricechem_dir  # noqa: E402

from rubricjudge import CriterionGrader, RubricDataset  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ricechem", help="folder with RiceChem's q1.json .. q4.json")
    ap.add_argument("--question", type=int, default=4)
    ap.add_argument("--answers", type=int, default=5)
    args = ap.parse_args()
    data = RubricDataset.from_file(ricechem_dir(args.ricechem) / f"q{args.question}.json")
    rubric = data.rubric
    grader = CriterionGrader(
        "local",
        verdict_method="verdict-only",
        reasons=False,
        calibration=None,
        evidence="off",
        judge_options={"cache": False},
    )
    asyncio.run(grader.grade(rubric, "warm up", query=data.get_item_query(0)))
    print(
        f"q{args.question}: {len(rubric.rubric)} criteria, {args.answers} answers, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}"
    )
    for features in (False, True):
        grader.features = features
        start, n = time.perf_counter(), 0
        for i in range(1, args.answers + 1):
            item = data.items[i]
            report = asyncio.run(
                grader.grade(rubric, item.submission, query=data.get_item_query(i))
            )
            n += len(report.report or [])
        per = (time.perf_counter() - start) / n
        print(f"  hidden state read: {features!s:5}  {per:.2f} s per judged criterion ({n})")


if __name__ == "__main__":
    main()
