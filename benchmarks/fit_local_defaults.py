"""Fit the bundled local judge's default calibration on real human labels.

Run: ``python benchmarks/fit_local_defaults.py [--ricechem DIR] [--cached-only] [-o FILE]``.

It reads the local judge's answers on RiceChem's train split (``_realdata.py``: real
student answers, teaching-assistant labels; the split ``judge_agreement.py`` reports on
never includes its test answers), fits one pooled group over every positive binary
criterion (``softmax(a·log p + b)``, Platt scaling; ``calibrate --method platt``) and
writes ``src/rubricjudge/data/local_calibration.json``.

What it does not ship, by measurement (``judge_agreement.py``, protocols c and d):

* per-criterion groups and the hidden-state probe: both help on the questions they were
  fitted on and not on a question they never saw (the probe's cold start is worse than
  the judge alone), and a user's criteria are never RiceChem's;
* a penalty group: no real labelled penalties exist to fit it on (the authored sets that
  fed the old one are smoke tests now), so penalties keep the judge's own probabilities;
* multi-choice groups: fitted on LLM-Rubric's dev split they learn that dataset's mix
  of labels, not the judge's lean.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(HERE / ".cache"))

from _realdata import FeatureCache, autorubric_split, judge_dataset, ricechem_dir  # noqa: E402

from rubricjudge import RubricDataset  # noqa: E402
from rubricjudge._calibration._groups import Calibration  # noqa: E402
from rubricjudge._calibration._train import Sample, fit_groups  # noqa: E402

OUT = HERE.parent / "src" / "rubricjudge" / "data" / "local_calibration.json"
SHIPPED_GROUPS = ("pooled:positive",)


def main(folder: Path, cached_only: bool, out: Path) -> None:
    samples: list[Sample] = []
    ids: list[str] = []
    counts = []
    for q in (1, 2, 3, 4):
        data = RubricDataset.from_file(folder / f"q{q}.json")
        train = autorubric_split(len(data.items))["train"]
        if cached_only:
            cache = FeatureCache(f"ricechem_q{q}")
            train = [i for i in train if cache.has(i, len(data.rubric.rubric))]
        judged = judge_dataset(f"ricechem_q{q}", data, train, label=f"q{q} train")
        samples += [Sample(c.criterion, c.probabilities, c.truth, None) for c in judged]
        ids += [f"ricechem:q{q}:{data.items[i].id or i}" for i in train]
        counts.append(f"q{q} {len(train)}")
    groups = [g for g in fit_groups(samples, "platt") if g.id in SHIPPED_GROUPS]
    cal = Calibration(
        judge="local",
        verdict_method="verdict-only",
        dataset=(
            "RiceChem (Sonkar et al. 2024) train split, real student answers labelled by "
            f"teaching assistants; answers judged: {', '.join(counts)}; pooled positive "
            "criteria only"
        ),
        train_ids=ids,
        groups=groups,
    ).with_shares([(s.criterion, s.probabilities, s.features) for s in samples])
    cal.save(out)
    for g in groups:
        print(
            f"{g.id}: n={g.n} {g.counts} scale={g.scale:.3f} bias={[round(b, 3) for b in g.bias]}"
            f" train acc {g.train_accuracy_raw:.3f} -> {g.train_accuracy_calibrated:.3f}"
        )
    print(f"wrote {out}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ricechem", help="folder with RiceChem's q1.json .. q4.json")
    ap.add_argument(
        "--cached-only", action="store_true", help="fit on the train answers already judged"
    )
    ap.add_argument(
        "-o", "--output", type=Path, default=OUT, help=f"where to write (default {OUT})"
    )
    args = ap.parse_args()
    main(ricechem_dir(args.ricechem), args.cached_only, args.output)
