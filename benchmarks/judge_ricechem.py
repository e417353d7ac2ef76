"""Judge RiceChem answers into the agreement cache without scoring anything.

Run: ``python benchmarks/judge_ricechem.py --part test|train [--max-train N] [--questions 1 2 3 4]``
(two of these, one per part, share a 2-core machine: each uses one core). The cache
is what ``judge_agreement.py`` and ``probe_layers.py`` read.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(HERE / ".cache"))

from _realdata import autorubric_split, judge_dataset, ricechem_dir  # noqa: E402

from rubricjudge import RubricDataset  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ricechem")
    ap.add_argument("--part", choices=["train", "test"], required=True)
    ap.add_argument("--max-train", type=int)
    ap.add_argument("--questions", type=int, nargs="*", default=[1, 2, 3, 4])
    args = ap.parse_args()
    folder = ricechem_dir(args.ricechem)
    for q in args.questions:
        data = RubricDataset.from_file(folder / f"q{q}.json")
        idx = autorubric_split(len(data.items))[args.part]
        if args.part == "train" and args.max_train:
            idx = idx[: args.max_train]
        judge_dataset(f"ricechem_q{q}_{args.part}", data, idx, label=f"q{q} {args.part}")


if __name__ == "__main__":
    main()
