"""Fit the bundled local judge's default calibration on the dev splits of our labelled data.

Run: ``python benchmarks/fit_local_defaults.py`` (about 1 s per judgment). Grades the
``dev`` split of every authored dataset in ``benchmarks/data`` with the local judge
(``verdict-only``, evidence checks off, no calibration), fits the pooled groups only
(every positive criterion; every penalty: a user's own criteria never match ours),
and writes ``src/rubricate/data/local_calibration.json``. ``judge_agreement.py``
reports every figure on the ``test`` splits, which this never sees.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("RUBRICATE_CACHE_DIR", str(HERE / ".cache"))

from _agreement_data import collect_samples, load_cases  # noqa: E402

from rubricate._calibration import Calibration, Sample, fit_groups  # noqa: E402
from rubricate._graders import CriterionGrader  # noqa: E402

DATASETS = ("pilot_physics", "authored_mixed", "authored_science")
OUT = HERE.parent / "src" / "rubricate" / "data" / "local_calibration.json"


async def main() -> None:
    grader = CriterionGrader(
        "local", verdict_method="verdict-only", evidence="off", calibration=None
    )
    samples: list[Sample] = []
    ids: list[str] = []
    for name in DATASETS:
        cases = [c for c in load_cases(name) if c.split == "dev" and not c.multi_choice]
        samples += await collect_samples(grader, cases)
        ids += sorted({f"{name}:{c.item_key}" for c in cases})
        print(f"{name}: {len(cases)} dev cases", file=sys.stderr, flush=True)
    # positives and penalties only: a user's options rarely match ours label for label
    groups = [g for g in fit_groups(samples) if g.id in ("pooled:positive", "pooled:negative")]
    cal = Calibration(
        judge="local",
        verdict_method="verdict-only",
        dataset="rubricate benchmarks/data, dev splits: " + ", ".join(DATASETS),
        train_ids=ids,
        groups=groups,
    )
    cal = cal.with_shares([(s.criterion, s.probabilities) for s in samples])
    cal.save(OUT)
    for g in groups:
        print(
            f"{g.id}: n={g.n} {g.counts} scale={g.scale:.3f} bias={[round(b, 3) for b in g.bias]}"
            f" train acc {g.train_accuracy_raw:.3f} -> {g.train_accuracy_calibrated:.3f}"
        )
    print(f"wrote {OUT}")


if __name__ == "__main__":
    asyncio.run(main())
