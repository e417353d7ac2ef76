"""What the answers nobody labelled, and the other questions' labels, add to the probe.

Run: ``python benchmarks/probe_unlabelled.py [--select train|test] [--n 10] [--repeats 5]``
after ``judge_ricechem.py`` has judged RiceChem with every hidden-state block (the same
cache as ``probe_layers.py``). Three tables, every figure agreement with the teaching
assistants' labels on (answer, criterion) pairs; choices are made with ``--select train``
(scored on the judged train answers that were not drawn) and reported once with
``--select test``:

* **few labels + unlabelled** (protocol (b)): N labelled answers per question fit the
  shipped probe (``d14+d18+d22``, C=0.003) over all questions, then: self-training on
  every other answer of the dataset (its confident pseudo-labels, weighted by
  confidence), a per-criterion offset fitted on the labels (shrunk by ``lam``), and
  label-free context features (the answer's rank within its criterion, its mean log-odds
  over the criteria) given 10x less shrinkage.
* **transfer** (a new question, as a new science is): N labels of one question, with
  the other three questions' judged train answers as a prior, either as extra samples
  (the new question's labels weighted up) or as a probe the new fit is shrunk toward.
* **no labels**: the judge, the shipped calibration, and rules that read only the
  distribution of the judge's log-odds over the answers being graded (a pooled or
  per-criterion quantile, criterion centring).
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from probe_layers import feats, load, logodds, scores

from rubricjudge._features import PROBE_BLOCKS

C = 0.003  # the shipped PROBE_C_LAYERS
SHIPPED = Path(__file__).resolve().parent.parent / "src/rubricjudge/data/local_calibration.json"
FEAT = feats(list(PROBE_BLOCKS))
Cases = Sequence[object]


def _key(c: object) -> tuple[str, int]:
    return (c.source.split()[0], c.crit)  # type: ignore[attr-defined]


class Matrix:
    """Feature rows, computed once per (answer, criterion)."""

    def __init__(self) -> None:
        self._rows: dict[int, np.ndarray] = {}

    def __call__(self, cases: Cases) -> np.ndarray:
        return np.stack([self._rows.setdefault(id(c), FEAT(c)) for c in cases]).astype(float)


def _y(cases: Cases) -> np.ndarray:
    return np.array([c.truth == "MET" for c in cases], dtype=int)  # type: ignore[attr-defined]


def _context(every: Cases) -> dict[int, np.ndarray]:
    """Label-free: the log-odds' z-score and rank within the criterion, the answer's mean."""
    by_crit: dict[tuple[str, int], list[float]] = {}
    by_answer: dict[tuple[str, int], list[float]] = {}
    for c in every:
        by_crit.setdefault(_key(c), []).append(logodds(c))
        by_answer.setdefault((_key(c)[0], c.item), []).append(logodds(c))  # type: ignore[attr-defined]
    out = {}
    for c in every:
        v, lo = np.array(by_crit[_key(c)]), logodds(c)
        rank = (v < lo).mean() + 0.5 * (v == lo).mean() - 0.5
        mean = float(np.mean(by_answer[(_key(c)[0], c.item)]))  # type: ignore[attr-defined]
        out[id(c)] = np.array([(lo - v.mean()) / (v.std() + 0.5), rank, mean / 5])
    return out


def probe(
    x: Matrix, train: Cases, held: Cases, pool: Cases, how: str, ctx: dict[int, np.ndarray]
) -> np.ndarray:
    """P(MET) for ``held``: the shipped probe on ``train``, then ``how``."""
    from sklearn.linear_model import LogisticRegression

    xtr, xte, y = x(train), x(held), _y(train)
    if how.startswith("context"):
        xtr = np.concatenate([xtr, np.stack([ctx[id(c)] for c in train])], axis=1)
        xte = np.concatenate([xte, np.stack([ctx[id(c)] for c in held])], axis=1)
    mean, scale = xtr.mean(axis=0), xtr.std(axis=0) + 1e-3
    weight = np.ones(xtr.shape[1])
    if how.startswith("context"):
        weight[-3:] = 10.0  # 10x the others' scale = far less shrinkage on the three

    def std(a: np.ndarray) -> np.ndarray:
        out: np.ndarray = (a - mean) / scale * weight
        return out

    model = LogisticRegression(C=C, max_iter=3000).fit(std(xtr), y)
    if how.startswith("self-training"):
        xp = std(x(pool))
        zp = model.decision_function(xp)
        confidence = np.abs(2 / (1 + np.exp(-zp)) - 1)
        model = LogisticRegression(C=C, max_iter=3000).fit(
            np.concatenate([std(xtr), xp]),
            np.concatenate([y, (zp > 0).astype(int)]),
            sample_weight=np.concatenate([np.ones(len(y)), 0.5 * confidence]),
        )
    z = model.decision_function(std(xte))
    if how.startswith("offset"):  # each criterion's bias, Newton on a penalised loss
        lam = float(how.split("lam=")[1])
        ztr = model.decision_function(std(xtr))
        shift: dict[tuple[str, int], float] = {}
        for k in {_key(c) for c in train}:
            idx = [i for i, c in enumerate(train) if _key(c) == k]
            b = 0.0
            for _ in range(50):
                p = 1 / (1 + np.exp(-(ztr[idx] + b)))
                b -= ((p - y[idx]).sum() + lam * b) / ((p * (1 - p)).sum() + lam)
            shift[k] = b
        z = z + np.array([shift.get(_key(c), 0.0) for c in held])
    out: np.ndarray = 1 / (1 + np.exp(-z))
    return out


def row(name: str, n: int, runs: Sequence[tuple[float, float, float]]) -> str:
    accs = [a for a, _, _ in runs]
    return (
        f"{name:36} {n:3d} {statistics.mean(accs):6.1%} ({min(accs):5.1%}-{max(accs):5.1%}) "
        f"{statistics.mean(k for _, k, _ in runs):6.3f} "
        f"{statistics.mean(a for _, _, a in runs):6.3f}"
    )


def few_labels(rc: dict, select: str, ns: Sequence[int], repeats: int) -> None:
    x = Matrix()
    ctx = _context([c for q in rc for part in ("train", "test") for c in rc[q][part]])
    print(f"\nfew labels + unlabelled answers: select on {select}, {repeats} draws")
    print(f"{'method':36} {'N':>3} {'acc':>6} {'(min-max)':>13} {'kappa':>6} {'AUC':>6}")
    hows = ["probe alone (shipped)", "self-training", "offset lam=1", "offset lam=10", "context"]
    for n in ns:
        for how in hows:
            runs = []
            for r in range(repeats):
                rng = random.Random(1000 * n + r)
                train, held, pool = [], [], []
                for q in rc:
                    items = sorted({c.item for c in rc[q]["train"]})
                    chosen = set(rng.sample(items, min(n, len(items))))
                    train += [c for c in rc[q]["train"] if c.item in chosen]
                    rest = [c for c in rc[q]["train"] if c.item not in chosen]
                    held += rest if select == "train" else rc[q]["test"]
                    pool += rest + rc[q]["test"]  # every answer nobody labelled
                runs.append(scores(held, probe(x, train, held, pool, how, ctx)))
            print(row(how, n, runs))


def _shrunk_toward(
    x: Matrix, prior: Cases, train: Cases, held: Cases, strength: float
) -> np.ndarray:
    """A probe on ``train`` whose weights are shrunk toward ``prior``'s probe, not to 0."""
    from scipy.optimize import minimize
    from sklearn.linear_model import LogisticRegression

    xo = x(prior)
    mo, so = xo.mean(axis=0), xo.std(axis=0) + 1e-3
    first = LogisticRegression(C=C, max_iter=3000).fit((xo - mo) / so, _y(prior))
    w_raw = first.coef_[0] / so
    b_raw = first.intercept_[0] - (mo / so) @ first.coef_[0]
    xl, y = x(train), _y(train)
    ml, sl = xl.mean(axis=0), xl.std(axis=0) + 1e-3
    zl, w0 = (xl - ml) / sl, w_raw * sl
    lam = strength / C

    def loss(v: np.ndarray) -> tuple[float, np.ndarray]:
        z = zl @ v[:-1] + v[-1]
        p = 1 / (1 + np.exp(-z))
        d = v[:-1] - w0
        grad = np.r_[zl.T @ (p - y) + lam * d, np.sum(p - y)]
        return float(np.sum(np.logaddexp(0, z) - y * z) + 0.5 * lam * d @ d), grad

    v = minimize(loss, np.r_[w0, b_raw + ml @ w_raw], jac=True, method="L-BFGS-B").x
    out: np.ndarray = 1 / (1 + np.exp(-(((x(held) - ml) / sl) @ v[:-1] + v[-1])))
    return out


def transfer(rc: dict, select: str, n: int, repeats: int) -> None:
    from sklearn.linear_model import LogisticRegression

    x = Matrix()

    def fit(train: Cases, held: Cases, weight: np.ndarray | None = None) -> np.ndarray:
        xt = x(train)
        m, s = xt.mean(axis=0), xt.std(axis=0) + 1e-3
        model = LogisticRegression(C=C, max_iter=3000).fit((xt - m) / s, _y(train), weight)
        out: np.ndarray = model.predict_proba((x(held) - m) / s)[:, 1]
        return out

    methods: dict[str, Callable[[Cases, Cases, Cases], np.ndarray]] = {
        "its own labels only": lambda own, other, held: fit(own, held),
        "the other questions only": lambda own, other, held: fit(other, held),
    }
    for up in (1, 3, 10):
        methods[f"both, its own weighted x{up}"] = lambda own, other, held, up=up: fit(
            list(other) + list(own), held, np.r_[np.ones(len(other)), up * np.ones(len(own))]
        )
    for strength in (0.3, 1.0, 3.0):
        methods[f"own, shrunk toward the others x{strength}"] = (
            lambda own, other, held, s=strength: _shrunk_toward(x, other, own, held, s)
        )
    print(f"\ntransfer: {n} labels of one question, the other three as a prior; select on {select}")
    print(f"{'method':36} {'N':>3} {'acc':>6} {'(min-max)':>13} {'kappa':>6} {'AUC':>6}")
    for name, method in methods.items():
        runs = []
        for r in range(repeats):
            held_all: list[object] = []
            got: list[np.ndarray] = []
            for q in rc:
                rng = random.Random(1000 * n + r + 17 * q)
                items = sorted({c.item for c in rc[q]["train"]})
                chosen = set(rng.sample(items, n))
                own = [c for c in rc[q]["train"] if c.item in chosen]
                held = (
                    [c for c in rc[q]["train"] if c.item not in chosen]
                    if select == "train"
                    else rc[q]["test"]
                )
                other = [c for qq in rc if qq != q for c in rc[qq]["train"]]
                held_all += held
                got.append(method(own, other, held))
            runs.append(scores(held_all, np.concatenate(got)))
        print(row(name, n, runs))


def no_labels(rc: dict, select: str) -> None:
    from rubricjudge._calibration._groups import Calibration

    cases = [c for q in rc for c in rc[q][select]]
    lo = np.array([logodds(c) for c in cases])
    shipped = Calibration.load(SHIPPED).groups[0]
    bias = shipped.bias[0] - shipped.bias[1]
    by_crit: dict[tuple[str, int], list[int]] = {}
    for i, c in enumerate(cases):
        by_crit.setdefault(_key(c), []).append(i)
    print(f"\nno labels ({select} answers; the shipped calibration was fitted on train answers)")
    print(f"{'method':44} {'n':>5} {'acc':>6} {'kappa':>6} {'AUC':>6} {'MET%':>6}")

    def show(name: str, z: np.ndarray) -> None:
        p = 1 / (1 + np.exp(-z))
        acc, kappa, a = scores(cases, p)
        print(f"{name:44} {len(cases):5d} {acc:6.1%} {kappa:6.3f} {a:6.3f} {(p > 0.5).mean():6.1%}")

    show("always MET", np.full(len(cases), 3.0))
    show("the judge alone", lo)
    show("the shipped calibration", shipped.scale * lo + bias)
    for share in (0.2, 0.25, 0.3):
        show(f"pooled: the lowest {share:.0%} UNMET", lo - np.quantile(lo, share) + 1e-6)
        z = lo.copy()
        for idx in by_crit.values():
            z[idx] = lo[idx] - np.quantile(lo[idx], share) + 1e-6
        show(f"each criterion: its lowest {share:.0%} UNMET", z)
        z = lo.copy()
        for idx in by_crit.values():
            z[idx] = lo[idx] - 0.5 * np.quantile(lo[idx], share) - 0.5 * np.quantile(lo, share)
        show(f"half each criterion, half pooled {share:.0%}", z)
    for beta in (0.5, 1.0):  # move each criterion's 30% point halfway to the pooled one
        z = lo.copy()
        for idx in by_crit.values():
            z[idx] = lo[idx] - beta * (np.quantile(lo[idx], 0.3) - np.quantile(lo, 0.3))
        show(f"criterion centring {beta:.1f}, then shipped", shipped.scale * z + bias)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ricechem")
    ap.add_argument("--select", choices=["train", "test"], default="train")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--n", type=int, nargs="*", default=[10])
    ap.add_argument("--only", choices=["few", "transfer", "none"])
    args = ap.parse_args()
    rc = load(args.ricechem, "train", max(args.n))
    if args.only in (None, "none"):
        no_labels(rc, args.select)
    if args.only in (None, "few"):
        few_labels(rc, args.select, args.n, args.repeats)
    if args.only in (None, "transfer"):
        for n in args.n:
            transfer(rc, args.select, n, args.repeats)


if __name__ == "__main__":
    main()
