"""Bagging the probe: does averaging bootstrap probes lift the draws of ten labels that fall short?

Run: ``python benchmarks/probe_bagging.py --select train|test [--draws 10] [--bags 10]``
after ``probe_layers.py`` (it reads the same cache of RiceChem's judged answers).

Protocol, as ``probe_layers.py``'s: 10 labelled answers per question drawn from the
judged train answers fit one probe over all questions' criteria (the shipped blocks
and C). ``--select train`` scores the other judged train answers (where the choice is
made), ``--select test`` the test split (reported once). Rows: the shipped probe; ten
probes fitted on bootstrap samples of the labelled answers (drawn by answer), their
log-odds averaged; the same as one probe (one standardisation of the labelled answers,
the bootstrap probes' weights averaged: what a calibration file could store); three
values of C averaged. Each row prints the mean, worst and best
draw and their spread: agreement with the teaching assistants' labels.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(HERE / ".cache"))

from _realdata import Judged  # noqa: E402
from probe_layers import feats, fit_predict, load, scores  # noqa: E402

BLOCKS = ["d14", "d18", "d22"]
C_REG = 0.003


def _log_odds(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    out: np.ndarray = np.log(p / (1 - p))
    return out


def one_probe(train: list[Judged], test: list[Judged], bags: int, draw: int) -> np.ndarray:
    """Bagging that fits in one stored probe: a shared standardisation, averaged weights.

    A probe is linear in the standardised features, so averaging the log-odds of
    probes that share one standardisation is one probe with their mean weights.
    """
    from sklearn.linear_model import LogisticRegression

    feat = feats(BLOCKS)
    xtr = np.stack([feat(c) for c in train]).astype(np.float64)
    xte = np.stack([feat(c) for c in test]).astype(np.float64)
    ytr = np.array([c.truth == "MET" for c in train], dtype=int)
    mean, scale = xtr.mean(axis=0), xtr.std(axis=0) + 1e-3
    xtr, xte = (xtr - mean) / scale, (xte - mean) / scale
    answers: dict[tuple[str, int], list[int]] = {}
    for i, c in enumerate(train):
        answers.setdefault((c.source.split()[0], c.item), []).append(i)
    keys = sorted(answers)
    coef, bias, fitted = np.zeros(xtr.shape[1]), 0.0, 0
    for b in range(bags):
        brng = random.Random(1000 * draw + b)
        idx = [i for _ in keys for i in answers[keys[brng.randrange(len(keys))]]]
        if len(set(ytr[idx])) < 2:
            continue
        m = LogisticRegression(C=C_REG, max_iter=3000).fit(xtr[idx], ytr[idx])
        coef, bias, fitted = coef + m.coef_[0], bias + float(m.intercept_[0]), fitted + 1
    z = xte @ (coef / fitted) + bias / fitted
    out: np.ndarray = 1 / (1 + np.exp(-z))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ricechem")
    ap.add_argument("--select", choices=["train", "test"], default="train")
    ap.add_argument("--draws", type=int, default=10)
    ap.add_argument("--bags", type=int, default=10)
    ap.add_argument("--n", type=int, default=10, help="labelled answers per question")
    args = ap.parse_args()
    rc = load(args.ricechem, "train", args.n)
    feat = feats(BLOCKS)
    rows: dict[str, list[tuple[float, float, float]]] = {
        "probe": [],
        "bagged": [],
        "bagged, one": [],
        "C avg": [],
    }
    for r in range(args.draws):
        rng = random.Random(r)
        train: list[Judged] = []
        rest: list[Judged] = []
        for q in rc:
            items = sorted({c.item for c in rc[q]["train"]})
            chosen = set(rng.sample(items, args.n))
            train += [c for c in rc[q]["train"] if c.item in chosen]
            rest += [c for c in rc[q]["train"] if c.item not in chosen]
        test = rest if args.select == "train" else [c for q in rc for c in rc[q]["test"]]
        rows["probe"].append(scores(test, fit_predict(train, test, feat, C_REG)))
        by_answer: dict[tuple[str, int], list[Judged]] = {}
        for c in train:
            by_answer.setdefault((c.source.split()[0], c.item), []).append(c)
        keys = sorted(by_answer)
        z = np.zeros(len(test))
        for b in range(args.bags):
            brng = random.Random(1000 * r + b)
            sample = [c for _ in keys for c in by_answer[keys[brng.randrange(len(keys))]]]
            z += _log_odds(fit_predict(sample, test, feat, C_REG))
        rows["bagged"].append(scores(test, 1 / (1 + np.exp(-z / args.bags))))
        rows["bagged, one"].append(scores(test, one_probe(train, test, args.bags, r)))
        cs = (0.001, 0.003, 0.01)
        z = sum(_log_odds(fit_predict(train, test, feat, c)) for c in cs) / len(cs)
        rows["C avg"].append(scores(test, 1 / (1 + np.exp(-z))))
        print(f"draw {r}: " + ", ".join(f"{k} {v[-1][0]:.1%}" for k, v in rows.items()))
    print(f"\n{args.select} split, {args.n} labelled answers per question, {args.draws} draws")
    for name, runs in rows.items():
        accs = [a for a, _, _ in runs]
        print(
            f"{name:7} acc {statistics.mean(accs):.1%} (worst {min(accs):.1%}, best "
            f"{max(accs):.1%}, sd {statistics.pstdev(accs):.3f}) "
            f"kappa {statistics.mean(k for _, k, _ in runs):.3f} "
            f"AUC {statistics.mean(a for _, _, a in runs):.3f}"
        )


if __name__ == "__main__":
    main()
