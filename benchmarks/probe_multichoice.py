"""LLM-Rubric's multi-choice questions: a probe on the last layer beside the middle layers.

Run: ``python benchmarks/probe_multichoice.py [--dialogues 30] [--splits 10]`` after
``judge_llm_rubric.py --split dev --max 30`` has judged the dialogues (every block is
cached). Two folds by dialogue, ``--splits`` random splits; every figure is agreement
with the one human judge's 1-4 answers (N/A included) on the held-out fold: exact
option, and Spearman's rho of the scale positions. Nothing is fitted on a fold it
scores.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(HERE / ".cache"))

from _mc_agreement import _argmax, _calibrated, _prior, _scores  # noqa: E402
from _realdata import Judged, judge_dataset, llm_rubric_split  # noqa: E402

import rubricjudge._calibration._train as train  # noqa: E402
from rubricjudge._datasets._bundled import load_example_dataset  # noqa: E402
from rubricjudge._features import PROBE_BLOCKS, block_values, encode  # noqa: E402

NAMES = ["final", *PROBE_BLOCKS]


def _slim(case: Judged) -> Judged:
    """The case with the blocks a probe may read only (cached rows differ in blocks)."""
    assert case.features is not None
    v = block_values(case.features, NAMES)
    w = len(v) // len(NAMES)
    return replace(case, features=encode({n: v[i * w : (i + 1) * w] for i, n in enumerate(NAMES)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dialogues", type=int, default=30)
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--c", type=float, default=0.003, help="C of the middle-layer probe")
    args = ap.parse_args()
    data = load_example_dataset("llm_rubric_microsoft")
    dev = [i for i, it in enumerate(data.items) if llm_rubric_split(str(it.id)) == "dev"]
    cases = [
        _slim(c)
        for c in judge_dataset(
            "llm_rubric_dev", data, dev[: args.dialogues], label="LLM-Rubric dev"
        )
    ]
    shipped = train.fit_option_probe

    def middle(*a: Any, **k: Any) -> Any:  # the option probe on blocks 14, 18, 22
        return shipped(*a, **{**k, "blocks": list(PROBE_BLOCKS), "regularisation": args.c})

    rows: dict[str, list[tuple[float, float, int]]] = {}
    for r in range(args.splits):
        items = sorted({c.item for c in cases})
        random.Random(r).shuffle(items)
        half = set(items[: len(items) // 2])
        for fold in (True, False):
            fit = [c for c in cases if (c.item in half) == fold]
            held = [c for c in cases if (c.item in half) != fold]
            picks: dict[str, Callable[[Judged], str]] = {
                "the judge alone": _argmax,
                "each question's most common answer": _prior(fit),
                "Platt scaling": _calibrated(fit, "platt"),
                "probe, last layer (shipped)": _calibrated(fit, "probe"),
            }
            train.fit_option_probe = middle
            try:
                picks["probe, blocks 14, 18, 22"] = _calibrated(fit, "probe")
            finally:
                train.fit_option_probe = shipped
            for name, pick in picks.items():
                rows.setdefault(name, []).append(_scores(held, pick))
    n = len({c.item for c in cases})
    print(f"LLM-Rubric dev: {len(cases)} pairs of {n} dialogues, 2 folds x {args.splits} splits")
    for name, got in rows.items():
        exact = [e for e, _, _ in got]
        print(
            f"{name:36} exact {statistics.mean(exact):6.1%} (min {min(exact):5.1%}) "
            f"rho {statistics.mean(r for _, r, _ in got):6.3f}"
        )


if __name__ == "__main__":
    main()
