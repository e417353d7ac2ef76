"""Seconds per judged criterion of the local judge, as the agreement figures were made.

Run: ``python benchmarks/local_per_criterion.py [--ricechem DIR] [--question 4] [--answers 5]
[--threads 1 2]``.

Grades a few RiceChem answers (real student answers; question 4 has 6 criteria) with
the library's grader in ``verdict-only``, KV cache reused across the criteria of an
answer, with and without reading the hidden state a probe needs, after one warm-up
answer (model load excluded). Issue 22's target: 1.5 s per criterion on 2 cores.
``--threads 1 2`` compares llama.cpp thread counts (the default is all cores but one):
each count gets its own model, and the counts take turns answer by answer, so a change
in the machine's load hits both; the largest difference in the judge's probabilities
between them is printed. ``--reasons`` also times the one-sentence reason asked for each
verdict that costs points (the time with reasons less the time without, per reason;
before each timed run one short untimed call takes the answer out of the KV cache);
``--reason-bounds 160:48 80:28`` compares bounds of a reason (characters : tokens).
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

import numpy as np  # noqa: E402
from _realdata import ricechem_dir  # noqa: E402

from rubricjudge import Criterion, CriterionGrader, Rubric, RubricDataset  # noqa: E402
from rubricjudge._graders import _reasons  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ricechem", help="folder with RiceChem's q1.json .. q4.json")
    ap.add_argument("--question", type=int, default=4)
    ap.add_argument("--answers", type=int, default=5)
    ap.add_argument("--threads", type=int, nargs="*", help="n_threads values to compare")
    ap.add_argument(
        "--reasons", action="store_true", help="also time the reasons of the verdicts that cost"
    )
    ap.add_argument(
        "--reason-bounds",
        nargs="*",
        default=[],
        metavar="CHARS:TOKENS",
        help="with --reasons: bounds of a reason to compare (default: the library's own)",
    )
    args = ap.parse_args()
    bounds = [tuple(int(x) for x in b.split(":")) for b in args.reason_bounds] or [
        (_reasons.REASON_CALL_CHARS, _reasons.REASON_TOKENS)
    ]
    data = RubricDataset.from_file(ricechem_dir(args.ricechem) / f"q{args.question}.json")
    rubric = data.rubric
    counts = args.threads or [None]
    graders = {t: _grader(t) for t in counts}
    tiny = Rubric([Criterion(name="flush", requirement="Says flush.")])
    for grader in graders.values():
        asyncio.run(grader.grade(rubric, "warm up", query=data.get_item_query(0)))
    print(
        f"q{args.question}: {len(rubric.rubric)} criteria, {args.answers} answers, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; "
        "thread counts interleaved answer by answer"
    )
    spent: dict[tuple[object, str], float] = {}
    n_decisions = 0
    n_reasons: dict[str, int] = {}
    words: dict[str, list[int]] = {}
    probs: dict[object, list[float]] = {t: [] for t in counts}
    for i in range(1, args.answers + 1):
        item, query = data.items[i], data.get_item_query(i)
        for t, grader in graders.items():
            said_modes = [f"reasons {c}:{k}" for c, k in bounds] if args.reasons else []
            for mode in [*said_modes, "plain", "features"]:
                grader.reasons = mode.startswith("reasons")
                grader.features = mode == "features"
                # every run starts with this answer's prefix out of the KV cache, as the
                # first run would: the flush is one short call, not timed
                asyncio.run(grader.grade(tiny, "flush", query="flush"))
                if grader.reasons:
                    chars, tokens = (int(x) for x in mode.split()[1].split(":"))
                    _reasons.REASON_CALL_CHARS, _reasons.REASON_TOKENS = chars, tokens
                start = time.perf_counter()
                report = asyncio.run(grader.grade(rubric, item.submission, query=query))
                spent[(t, mode)] = spent.get((t, mode), 0.0) + time.perf_counter() - start
                rows = report.report or []
                if mode == "plain":
                    probs[t] += [p for r in rows for p in (r.probabilities or {}).values()]
                    if t == counts[0]:
                        n_decisions += len(rows)
                if grader.reasons and t == counts[0]:
                    said = [r.reason for r in rows if r.reason]
                    for r in rows:
                        if r.reason or "reason_error" in (r.llm_invocation or {}):
                            why = (r.llm_invocation or {}).get("reason_error", "")
                            print(f"    {mode}, answer {i}, {r.criterion.name}: {r.reason or why}")
                    n_reasons[mode] = n_reasons.get(mode, 0) + len(said)
                    words.setdefault(mode, []).extend(len(r.split()) for r in said)
    for t in counts:
        line = (
            f"  n_threads {t or 'default'}: {spent[(t, 'plain')] / n_decisions:.2f} s per "
            f"judged criterion, {spent[(t, 'features')] / n_decisions:.2f} s reading the "
            "hidden state"
        )
        print(line + f" ({n_decisions} criteria)")
        for mode, n in n_reasons.items():
            if n:
                extra = (spent[(t, mode)] - spent[(t, "plain")]) / n
                said = words[mode]
                print(
                    f"    {mode} (characters:tokens): {extra:.2f} s per reason, {n} reasons "
                    f"of {min(said)}-{max(said)} words"
                )
    if len(counts) > 1:
        first = np.array(probs[counts[0]])
        for t in counts[1:]:
            diff = float(np.max(np.abs(first - np.array(probs[t]))))
            print(f"  largest |P| difference, n_threads {counts[0]} against {t}: {diff:.2g}")
    print(f"  load average {os.getloadavg()[0]:.1f} at the end")


def _grader(threads: int | None) -> CriterionGrader:
    return CriterionGrader(
        "local",
        verdict_method="verdict-only",
        reasons=False,
        calibration=None,
        evidence="off",
        judge_options={
            "cache": False,
            "extra_params": {} if threads is None else {"n_threads": threads},
        },
    )


if __name__ == "__main__":
    main()
