"""Smoke test on the authored sets (written and labelled by us): judge layouts side by side.

These sets no longer choose defaults (they overstated agreement by about 20 points against
real answers); ``judge_agreement.py`` measures on real, human-labelled data.

Run: ``python benchmarks/authored_agreement.py [--data NAME ...] [--configs NAME ...]
[--split test|dev|all] [--limit N]``.

Every configuration grades the same items with the same local model; the table
prints, per dataset and split, accuracy and Cohen's kappa against the human labels
(binary criteria, CANNOT_ASSESS counted as UNMET), recall and precision of MET on
positive criteria, the false-penalty rate (penalties the humans say are absent but
the judge charges) and the same on correct answers only (items whose every positive
criterion the humans marked MET), exact accuracy on multi-choice criteria, and the
judge calls and seconds per judged criterion. Anything fitted (calibration, the
default thresholds) is fitted on the ``dev`` split and reported on ``test``; the
splits are by question, so no question is in both.

Configurations:

* ``before``: the prompts and reply layout of rubricjudge 0.1 (reason, then verdict)
  as they were before the trust work, for reference;
* ``reason-first``, ``verdict-first``, ``verdict-only``: today's prompts in each
  reply layout, the verdict taken from the label probabilities where the judge has them;
* ``calibrated``: ``verdict-only`` with a calibration fitted on the dev split;
* ``cascade``: ``calibrated``, with answers below 0.7 confidence re-asked to a
  stronger judge (a scripted server here that answers right 90% of the time);
* ``autorubric-style`` and ``rubric-style``: prompts laid out like those packages'
  (our wording of their structure: long verdict definitions, reason first) on the
  same local model.

Judgments are cached in ``benchmarks/.cache`` (response cache), so a rerun only
computes what changed. Expect about 1 s per judgment for ``verdict-only`` and
3-6 s for the layouts that write a reason, on one core.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(Path(__file__).resolve().parent / ".cache"))

from _agreement_configs import CONFIGS, make_grader  # noqa: E402
from _agreement_data import DATASETS, Case, load_cases  # noqa: E402


@dataclass
class Tally:
    """Counts for one configuration on one set of cases."""

    right: int = 0
    n: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    pen_absent: int = 0
    pen_charged: int = 0
    pen_absent_correct: int = 0
    pen_charged_correct: int = 0
    mc_right: int = 0
    mc_n: int = 0
    calls: int = 0
    seconds: float = 0.0
    pairs: list[tuple[int, int]] = field(default_factory=list)
    scored: list[tuple[int, float]] = field(default_factory=list)
    pen_present: int = 0
    pen_caught: int = 0

    def auc(self) -> float:
        """Area under the ROC curve of P(MET) against the labels (ranking quality)."""
        pos = [p for g, p in self.scored if g]
        neg = [p for g, p in self.scored if not g]
        if not pos or not neg:
            return math.nan
        wins = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg)
        return wins / (len(pos) * len(neg))

    def add(self, case: Case, got: str | None, p_met: float | None = None) -> None:
        if case.multi_choice:
            self.mc_n += 1
            self.mc_right += got == case.gold
            return
        gold = 1 if case.gold == "MET" else 0
        pred = 1 if got == "MET" else 0
        self.n += 1
        self.right += gold == pred
        self.pairs.append((gold, pred))
        if p_met is not None:
            self.scored.append((gold, p_met))
        if case.penalty:
            if gold == 1:
                self.pen_present += 1
                self.pen_caught += pred
            if gold == 0:
                self.pen_absent += 1
                self.pen_charged += pred
                if case.correct_answer:
                    self.pen_absent_correct += 1
                    self.pen_charged_correct += pred
            return
        self.tp += gold and pred
        self.fp += (not gold) and pred
        self.fn += gold and not pred
        self.tn += (not gold) and not pred

    def kappa(self) -> float:
        n = len(self.pairs)
        if not n:
            return math.nan
        po = sum(g == p for g, p in self.pairs) / n
        pg = sum(g for g, _ in self.pairs) / n
        pp = sum(p for _, p in self.pairs) / n
        pe = pg * pp + (1 - pg) * (1 - pp)
        return (po - pe) / (1 - pe) if pe < 1 else math.nan


def _pct(a: int, b: int) -> str:
    return f"{a / b:5.1%}" if b else "   - "


def row(name: str, t: Tally) -> str:
    recall = _pct(t.tp, t.tp + t.fn)
    precision = _pct(t.tp, t.tp + t.fp)
    per = t.seconds / max(t.n + t.mc_n, 1)
    return (
        f"{name:18} {t.n + t.mc_n:5d} {_pct(t.right, t.n)} {t.kappa():6.3f} {t.auc():5.3f} "
        f"{recall} {precision} {_pct(t.pen_caught, t.pen_present)} "
        f"{_pct(t.pen_charged, t.pen_absent)} {_pct(t.pen_charged_correct, t.pen_absent_correct)} "
        f"{_pct(t.mc_right, t.mc_n)} {t.calls / max(t.n + t.mc_n, 1):5.2f} {per:6.2f}"
    )


HEADER = (
    f"{'config':18} {'cases':>5} {'acc':>5} {'kappa':>6} {'auc':>5} {'recall':>6} {'prec':>5} "
    f"{'faults':>6} {'falsePen':>8} {'onCorrect':>9} {'mcAcc':>5} {'calls':>5} {'s/case':>6}"
)


async def run_config(
    name: str, cases: Sequence[Case], dev: Sequence[Case], progress: Callable[[str], None]
) -> Tally:
    grader = await make_grader(name, dev, progress, cases)
    tally = Tally()
    start = time.perf_counter()
    by_item: dict[str, list[Case]] = {}
    for c in cases:
        by_item.setdefault(c.item_key, []).append(c)
    for k, (_, group) in enumerate(by_item.items(), 1):
        first = group[0]
        report = await grader.grade(
            first.rubric, first.submission, query=first.query, item_id=first.item_key
        )
        tally.calls += report.judge_calls
        leaves = list(_leaves(report.report or []))
        for c in group:
            cr = leaves[c.leaf]
            got = (
                cr.selection.label
                if cr.selection is not None
                else (cr.verdict.value if cr.verdict is not None else None)
            )
            probs = cr.probabilities or {}
            p_met = None
            if not c.multi_choice and "MET" in probs:
                p_met = probs["MET"] / max(probs.get("MET", 0) + probs.get("UNMET", 0), 1e-12)
            tally.add(c, got, p_met)
        if k % 10 == 0:
            progress(f"  {name}: {k}/{len(by_item)} items")
    tally.seconds = time.perf_counter() - start
    return tally


def _leaves(reports: Sequence[Any]) -> Any:
    for r in reports:
        if r.children:
            yield from _leaves(r.children)
        else:
            yield r


async def main_async(args: argparse.Namespace) -> None:
    def progress(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    for data in args.data:
        cases = load_cases(data, limit=args.limit)
        dev = [c for c in cases if c.split == "dev"]
        shown = cases if args.split == "all" else [c for c in cases if c.split == args.split]
        print(f"\n{data}: {len(shown)} cases ({args.split} split; dev has {len(dev)})")
        print(HEADER)
        results = {}
        for name in args.configs:
            tally = await run_config(name, shown, dev, progress)
            results[name] = tally
            print(row(name, tally), flush=True)
        if args.json:
            out = {k: vars(v) | {"kappa": v.kappa()} for k, v in results.items()}
            Path(args.json).write_text(json.dumps(out, indent=1, default=str))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", nargs="+", default=["pilot_physics"], choices=sorted(DATASETS))
    ap.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    ap.add_argument("--split", default="test", choices=["test", "dev", "all"])
    ap.add_argument("--limit", type=int, help="at most this many items per dataset")
    ap.add_argument("--json", help="also write the tallies to this file")
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()
