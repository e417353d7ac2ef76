"""Contrast pairs: each criterion asked as "is it true?" and as "is it false?", no labels.

Run: ``python benchmarks/probe_contrast.py collect [--ricechem DIR]`` (judges, with the
negated question, the RiceChem answers that ``judge_agreement.py`` / ``probe_layers.py``
judged already; cached in ``benchmarks/.cache/ricechem_q*_neg.npz``), then
``python benchmarks/probe_contrast.py score --select train|test``.

A small judge says "yes" to most statements (the local judge calls 94% of RiceChem's
pairs MET where the teaching assistants call 59.5% MET). Asked the negation too, the
same bias pushes the other way, so half the difference of the two log-odds,
``(log-odds(true) - log-odds(false)) / 2``, cancels it with no label and no assumed
share of UNMET answers (Burns et al. 2023's contrast-consistent idea, read off the
judge's answers instead of a fitted direction). The rows beside it are the judge alone,
the shipped calibration, and the probe of ``calibrate`` with and without the negated
question's hidden state. Chosen with ``--select train`` (the judged train answers),
reported once with ``--select test``; every figure is agreement with the teaching
assistants' labels.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(HERE / ".cache"))

from _realdata import FeatureCache, Judged, judge_dataset, ricechem_dir  # noqa: E402
from probe_layers import feats, fit_predict, load, logodds, scores  # noqa: E402

from rubricjudge import RubricDataset  # noqa: E402

TRUE_Q = (
    "Is this statement true of the submission? "
    "Answer yes if the submission does this, in any wording; no if it does not."
)
FALSE_Q = (
    "Is this statement false of the submission? "
    "Answer yes if the submission does not do this; no if it does, in any wording."
)


def negate_prompts() -> None:
    """Ask every binary criterion as its negation (the library's own grader, patched)."""
    from rubricjudge._graders import _criterion

    original = _criterion.criterion_prompt

    def negated(*args: object, **kwargs: object) -> str:
        text: str = original(*args, **kwargs)  # type: ignore[arg-type]
        assert TRUE_Q in text or "Options:" in text, "the binary question changed: update TRUE_Q"
        return text.replace(TRUE_Q, FALSE_Q)

    _criterion.criterion_prompt = negated  # type: ignore[assignment]


def collect(folder: str | None) -> None:
    negate_prompts()
    rc = load(folder, "train", 0)
    base = ricechem_dir(folder)
    for part in ("train", "test"):
        for q in rc:
            data = RubricDataset.from_file(base / f"q{q}.json")
            items = sorted({c.item for c in rc[q][part]})
            judge_dataset(f"ricechem_q{q}_neg", data, items, label=f"q{q} {part} negated")


def paired(rc: dict[int, dict[str, list[Judged]]], part: str) -> list[tuple[Judged, Judged]]:
    """Each judged (answer, criterion) beside its negated twin, where both exist."""
    out = []
    for q in rc:
        cache = FeatureCache(f"ricechem_q{q}_neg")
        for c in rc[q][part]:
            row = cache.rows.get((c.item, c.crit))
            if row is None:
                continue
            neg = Judged(
                source=c.source,
                item=c.item,
                crit=c.crit,
                criterion=c.criterion,
                truth=c.truth,
                probabilities=row["probabilities"],
                features=row["features"],
                seconds=row["seconds"],
            )
            out.append((c, neg))
    return out


def shipped(cases: Sequence[Judged]) -> np.ndarray:
    """P(MET) under the shipped calibration (``rubricjudge``'s default for the local judge)."""
    from judge_agreement import shipped

    predict = shipped()
    return np.array([predict(c)[1] for c in cases])


def score(folder: str | None, select: str, repeats: int, n_labels: Sequence[int]) -> None:
    rc = load(folder, "train", 0)
    pairs = paired(rc, select)
    if not pairs:
        sys.exit("no negated answers cached: run `probe_contrast.py collect` first")
    cases = [p for p, _ in pairs]
    z_pos = np.array([logodds(p) for p, _ in pairs])
    z_neg = np.array([logodds(n) for _, n in pairs])  # "MET" here is the answer "yes"
    secs = statistics.mean(n.seconds for _, n in pairs if n.seconds)
    print(
        f"{select} split: {len(pairs)} pairs with both questions "
        f"({len({(c.source, c.item) for c in cases})} answers); "
        f"the negated question took {secs:.2f} s per criterion"
    )
    print(f"{'method (reads no label)':52} {'acc':>6} {'kappa':>6} {'AUC':>6} {'MET%':>6}")

    def show(name: str, p: np.ndarray, cs: Sequence[Judged] = cases) -> None:
        acc, kappa, a = scores(cs, p)
        print(f"{name:52} {acc:6.1%} {kappa:6.3f} {a:6.3f} {(p > 0.5).mean():6.1%}")

    def sig(z: np.ndarray) -> np.ndarray:
        out: np.ndarray = 1 / (1 + np.exp(-z))
        return out

    show("always MET", np.full(len(cases), 0.75))
    show("the judge alone, P(yes) > 0.5", sig(z_pos))
    show("the shipped calibration (default)", shipped(cases))
    show("the negated question alone, P(no) > 0.5", sig(-z_neg))
    show("contrast: (z_true - z_false) / 2 > 0", sig((z_pos - z_neg) / 2))
    for w in (0.25, 0.75):
        show(f"contrast weighted {w:.2f} on the negation", sig((1 - w) * z_pos - w * z_neg))
    p_true, p_false = sig(z_pos), sig(z_neg)
    show("contrast on probabilities: P(yes|true) > P(yes|false)", sig(8 * (p_true - p_false)))
    agree = np.mean((z_pos > 0) != (z_neg > 0))
    print(f"the two questions give opposite answers on {agree:.1%} of the pairs")
    per_q: dict[str, list[int]] = {}
    for i, c in enumerate(cases):
        per_q.setdefault(c.source.split()[0], []).append(i)
    print("\nper question (acc / AUC): judge alone | shipped | contrast")
    ship = shipped(cases)
    for q, idx in sorted(per_q.items()):
        sub = [cases[i] for i in idx]
        a = scores(sub, sig(z_pos[idx]))
        b = scores(sub, ship[idx])
        c = scores(sub, sig((z_pos[idx] - z_neg[idx]) / 2))
        print(
            f"  {q}: {a[0]:6.1%} {a[2]:.3f} | {b[0]:6.1%} {b[2]:.3f} | {c[0]:6.1%} {c[2]:.3f}"
            f"  ({len(idx)} pairs)"
        )
    if not n_labels:
        return
    # with labels: the shipped probe, and the probe given the negated question's state too
    train_rc = paired(rc, "train")
    by_q: dict[str, dict[int, list[tuple[Judged, Judged]]]] = {}
    for p, n in train_rc:
        by_q.setdefault(p.source.split()[0], {}).setdefault(p.item, []).append((p, n))
    probe = feats(["d14", "d18", "d22"])

    def both(c: Judged) -> np.ndarray:
        return np.concatenate([probe(c), probe(twin[(c.source, c.item, c.crit)])])

    def difference(c: Judged) -> np.ndarray:  # the contrast of the two states, CCS-like
        out: np.ndarray = probe(c) - probe(twin[(c.source, c.item, c.crit)])
        return out

    def with_contrast(c: Judged) -> np.ndarray:  # the shipped probe and the contrast log-odds
        return np.append(probe(c), logodds(twin[(c.source, c.item, c.crit)]))

    twin = {(p.source, p.item, p.crit): n for p, n in train_rc + pairs}
    print(f"\nwith N labelled answers per question ({repeats} draws)")
    for n in n_labels:
        variants = (
            ("probe (shipped blocks)", probe),
            ("probe + negated state", both),
            ("probe on the states' difference", difference),
            ("probe + negated log-odds", with_contrast),
        )
        for name, feat in variants:
            runs = []
            for r in range(repeats):
                rng = random.Random(r)
                train: list[Judged] = []
                for items in by_q.values():
                    chosen = rng.sample(sorted(items), min(n, len(items)))
                    train += [p for i in chosen for p, _ in items[i]]
                chosen_keys = {(c.source, c.item) for c in train}
                test = [c for c in cases if (c.source, c.item) not in chosen_keys]
                runs.append(scores(test, fit_predict(train, test, feat, 0.003)))
            accs = [a for a, _, _ in runs]
            kappa = statistics.mean(k for _, k, _ in runs)
            print(
                f"  {name:28} N={n:2d} {statistics.mean(accs):6.1%} "
                f"({min(accs):.1%}-{max(accs):.1%}) kappa {kappa:.3f}"
                f" AUC {statistics.mean(a for _, _, a in runs):.3f}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["collect", "score"])
    ap.add_argument("--ricechem")
    ap.add_argument("--select", choices=["train", "test"], default="train")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--n", type=int, nargs="*", default=[])
    args = ap.parse_args()
    if args.mode == "collect":
        collect(args.ricechem)
    else:
        score(args.ricechem, args.select, args.repeats, args.n)


if __name__ == "__main__":
    main()
