"""Time compute_metrics with 1,000 bootstrap resamples on 1,000 items x 10 criteria.

Run: python benchmarks/bootstrap_metrics.py [--items N] [--resamples B]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._metrics._compute import compute_metrics
from rubricjudge._model._rubric import Criterion, CriterionOption, Rubric
from rubricjudge._model._scoring import finalize
from rubricjudge._model._verdicts import reports_from_verdicts

LEVELS = ["1", "2", "3", "4"]


def build(n: int, seed: int = 0) -> tuple[RubricDataset, list]:
    rng = np.random.default_rng(seed)
    criteria = [Criterion(name=f"b{i}", requirement=f"binary {i}") for i in range(5)]
    criteria += [
        Criterion(
            name=f"o{i}",
            requirement=f"ordinal {i}",
            options=[CriterionOption(label=v, value=k / 3) for k, v in enumerate(LEVELS)]
            + [CriterionOption(label="N/A", na=True)],
        )
        for i in range(5)
    ]
    rubric = Rubric(criteria)
    items, reports = [], []
    for i in range(n):
        truth = [rng.choice(["MET", "UNMET"]) for _ in range(5)]
        truth += [rng.choice([*LEVELS, "N/A"]) for _ in range(5)]
        judged = [t if rng.random() < 0.7 else rng.choice(["MET", "UNMET"]) for t in truth[:5]]
        judged += [t if rng.random() < 0.6 else rng.choice(LEVELS) for t in truth[5:]]
        items.append(DataItem(submission=str(i), ground_truth=[str(t) for t in truth]))
        reports.append(finalize(rubric, reports_from_verdicts(rubric, [str(j) for j in judged])))
    return RubricDataset(prompt="p", rubric=rubric, items=items), reports


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()
    dataset, reports = build(args.items)
    t0 = time.perf_counter()
    compute_metrics(reports, dataset)
    t1 = time.perf_counter()
    report = compute_metrics(reports, dataset, bootstrap=args.resamples)
    t2 = time.perf_counter()
    print(
        f"{args.items} items x 10 criteria: point estimates {t1 - t0:.2f}s, "
        f"with {args.resamples} bootstrap resamples {t2 - t1:.2f}s"
    )
    print(report.to_text().splitlines()[3])


if __name__ == "__main__":
    main()
