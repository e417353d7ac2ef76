"""Fit the bundled local judge's default calibration on the dev splits of our labelled data.

Run: ``python benchmarks/fit_local_defaults.py [--only-multi-choice]`` (about 1 s per
judgment). Grades the ``dev`` split of every authored dataset in ``benchmarks/data``
and of the bundled LLM-Rubric dialogues with the local judge (``verdict-only``,
evidence checks off, no calibration), fits the pooled groups only (every positive
criterion; every penalty; multi-choice criteria by kind, size and option place: a
user's own criteria never match ours word for word), and writes
``src/rubricate/data/local_calibration.json``. ``--only-multi-choice`` grades only the
multi-choice cases and keeps the binary groups already in that file.
``judge_agreement.py`` reports every figure on the ``test`` splits, which this never sees.
"""

from __future__ import annotations

import argparse
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

DATASETS = ("pilot_physics", "authored_mixed", "authored_science", "llm_rubric")
OUT = HERE.parent / "src" / "rubricate" / "data" / "local_calibration.json"
BINARY_GROUPS = ("pooled:positive", "pooled:negative")


def _shipped(group_id: str) -> bool:
    """The groups the local judge ships: none tied to our own criteria or option words."""
    return group_id in BINARY_GROUPS or group_id.startswith("pooled:positions:")


async def main(only_multi_choice: bool, out: Path) -> None:
    grader = CriterionGrader(
        "local", verdict_method="verdict-only", evidence="off", calibration=None
    )
    samples: list[Sample] = []
    ids: list[str] = []
    for name in DATASETS:
        cases = [
            c
            for c in load_cases(name)
            if c.split == "dev" and (c.multi_choice or not only_multi_choice)
        ]
        samples += await collect_samples(grader, cases)
        ids += sorted({f"{name}:{c.item_key}" for c in cases})
        print(f"{name}: {len(cases)} dev cases", file=sys.stderr, flush=True)
    groups = [g for g in fit_groups(samples) if _shipped(g.id)]
    if only_multi_choice:  # keep the shipped binary groups and the items they saw
        kept = Calibration.load(OUT)
        groups = [g for g in kept.groups if g.id in BINARY_GROUPS] + groups
        ids = sorted(set(kept.train_ids) | set(ids))
    cal = Calibration(
        judge="local",
        verdict_method="verdict-only",
        dataset="rubricate benchmarks/data and the LLM-Rubric dialogues, dev splits: "
        + ", ".join(DATASETS),
        train_ids=ids,
        groups=groups,
    )
    if only_multi_choice:  # the binary answers' shares: those are what a cascade escalates most
        cal = cal.model_copy(update={"confidence_shares": kept.confidence_shares})
    else:
        cal = cal.with_shares([(s.criterion, s.probabilities) for s in samples])
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
        help="grade and fit the multi-choice cases only; keep the shipped binary groups",
    )
    ap.add_argument(
        "-o", "--output", type=Path, default=OUT, help=f"where to write (default {OUT})"
    )
    args = ap.parse_args()
    asyncio.run(main(args.only_multi_choice, args.output))
