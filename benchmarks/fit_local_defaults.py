"""Fit the bundled local judge's default calibration on the dev splits of our labelled data.

Run: ``python benchmarks/fit_local_defaults.py [--only-multi-choice] [-o FILE]`` (about
1 s per judgment). Grades the binary cases of the ``dev`` split of every labelled
dataset with the local judge (``verdict-only``, evidence checks off, no calibration),
fits the pooled groups only (every positive criterion; every penalty: a user's own
criteria never match ours), and writes ``src/rubricjudge/data/local_calibration.json``.
``--only-multi-choice`` is the experiment behind docs/trust.md's multi-choice paragraph: it
grades the multi-choice dev cases (the LLM-Rubric dialogues included), fits groups by
option place and writes them beside the shipped binary groups to ``-o FILE``; they are
not shipped because they learned one dataset's mix of labels. ``judge_agreement.py``
reports every figure on the ``test`` splits, which this never sees.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(HERE / ".cache"))

from _agreement_data import collect_samples, load_cases  # noqa: E402

from rubricjudge._calibration import Calibration, Sample, fit_groups  # noqa: E402
from rubricjudge._graders import CriterionGrader  # noqa: E402

DATASETS = ("pilot_physics", "authored_mixed", "authored_science", "llm_rubric")
OUT = HERE.parent / "src" / "rubricjudge" / "data" / "local_calibration.json"
BINARY_GROUPS = ("pooled:positive", "pooled:negative")


async def main(only_multi_choice: bool, out: Path) -> None:
    grader = CriterionGrader(
        "local", verdict_method="verdict-only", evidence="off", calibration=None
    )
    samples: list[Sample] = []
    ids: list[str] = []
    for name in DATASETS:
        cases = [
            c for c in load_cases(name) if c.split == "dev" and c.multi_choice == only_multi_choice
        ]
        samples += await collect_samples(grader, cases)
        ids += sorted({f"{name}:{c.item_key}" for c in cases})
        print(f"{name}: {len(cases)} dev cases", file=sys.stderr, flush=True)
    fitted = fit_groups(samples)
    if only_multi_choice:
        # the by-place groups beside the shipped binary groups, for judge_agreement.py to try
        shipped = Calibration.load(OUT)
        groups = [g for g in fitted if g.id.startswith("pooled:positions:")]
        cal = shipped.model_copy(
            update={
                "groups": shipped.groups + groups,
                "train_ids": sorted(set(shipped.train_ids) | set(ids)),
            }
        )
    else:
        groups = [g for g in fitted if g.id in BINARY_GROUPS]
        cal = Calibration(
            judge="local",
            verdict_method="verdict-only",
            dataset="rubricjudge benchmarks/data, dev splits: " + ", ".join(DATASETS[:3]),
            train_ids=ids,
            groups=groups,
        ).with_shares([(s.criterion, s.probabilities) for s in samples])
    cal.save(out)
    for g in groups:
        print(
            f"{g.id}: n={g.n} {g.counts} scale={g.scale:.3f} bias={[round(b, 3) for b in g.bias]}"
            f" train acc {g.train_accuracy_raw:.3f} -> {g.train_accuracy_calibrated:.3f}"
        )
    print(f"wrote {out}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--only-multi-choice",
        action="store_true",
        help="fit groups by option place on the multi-choice cases and write them beside the "
        "shipped binary groups (an experiment: docs/trust.md says why they are not shipped)",
    )
    ap.add_argument(
        "-o", "--output", type=Path, default=OUT, help=f"where to write (default {OUT})"
    )
    args = ap.parse_args()
    asyncio.run(main(args.only_multi_choice, args.output))
