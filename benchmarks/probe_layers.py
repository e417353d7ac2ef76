"""Which of the local judge's hidden states a probe should read: layers, pooling, unlabelled.

Run: ``python benchmarks/probe_layers.py [--ricechem DIR] [--select train|test] [--repeats 5]``
after ``judge_agreement.py`` (or this script) has judged the answers: it reads the same
cache (``benchmarks/.cache/ricechem_q*.npz``), whose features hold every block of
``rubricjudge._features.RESEARCH_BLOCKS`` (the judge's ``hidden_blocks: all``).

Protocol, as ``judge_agreement.py``'s (b): N labelled answers per question drawn from
RiceChem's train split fit one probe over all questions' criteria (as ``calibrate`` on a
file of several questions does). ``--select train`` scores the *other* judged train
answers (what defaults are chosen on); ``--select test`` scores the test split (what is
reported, once the choice is made). Every figure is agreement with the teaching
assistants' labels, micro-averaged over (answer, criterion) pairs.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(HERE / ".cache"))

from _realdata import FeatureCache, Judged, ricechem_dir  # noqa: E402
from judge_agreement import auc, load_ricechem  # noqa: E402

from rubricjudge._features import RESEARCH_BLOCKS as BLOCKS  # noqa: E402
from rubricjudge._features import block_values  # noqa: E402


def block(c: Judged, name: str) -> np.ndarray:
    assert c.features is not None
    out: np.ndarray = block_values(c.features, [name])
    return out


def logodds(c: Judged) -> float:
    a = max(c.probabilities.get("MET", 0.0), 1e-6)
    b = max(c.probabilities.get("UNMET", 0.0), 1e-6)
    return max(-13.8, min(13.8, math.log(a / b)))


Feat = Callable[[Judged], np.ndarray]


def feats(names: Sequence[str]) -> Feat:
    def f(c: Judged) -> np.ndarray:
        return np.concatenate([block(c, n) for n in names] + [np.array([logodds(c)])])

    return f


def fit_predict(
    train: Sequence[Judged],
    test: Sequence[Judged],
    feat: Feat,
    c_reg: float,
    *,
    per_criterion: bool = False,
    unlabelled: Sequence[Judged] = (),
    pca: int = 0,
    ensemble: Sequence[Sequence[str]] = (),
) -> np.ndarray:
    """P(MET) for ``test`` from an L2 logistic probe on ``train`` (standardised inputs).

    ``unlabelled`` answers (no labels used) give the standardisation and, with ``pca``,
    the principal directions the probe is fitted in.
    """
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression

    xtr = np.stack([feat(c) for c in train]).astype(np.float64)
    xte = np.stack([feat(c) for c in test]).astype(np.float64)
    ytr = np.array([c.truth == "MET" for c in train], dtype=int)
    pool = np.concatenate([xtr, np.stack([feat(c) for c in unlabelled])]) if unlabelled else xtr
    mean, scale = pool.mean(axis=0), pool.std(axis=0) + 1e-3
    xtr, xte, pool = (xtr - mean) / scale, (xte - mean) / scale, (pool - mean) / scale
    if pca:
        p = PCA(n_components=min(pca, len(pool) - 1)).fit(pool[:, :-1])
        xtr = np.concatenate([p.transform(xtr[:, :-1]), xtr[:, -1:]], axis=1)
        xte = np.concatenate([p.transform(xte[:, :-1]), xte[:, -1:]], axis=1)
    if ensemble:  # one probe per block, their log-odds averaged
        z = np.zeros(len(test))
        for names in ensemble:
            p = fit_predict(train, test, feats(names), c_reg, unlabelled=unlabelled)
            p = np.clip(p, 1e-6, 1 - 1e-6)
            z += np.log(p / (1 - p))
        return 1 / (1 + np.exp(-z / len(ensemble)))
    if not per_criterion:
        if len(set(ytr)) < 2:
            return np.full(len(test), ytr.mean())
        m = LogisticRegression(C=c_reg, max_iter=3000).fit(xtr, ytr)
        out: np.ndarray = m.predict_proba(xte)[:, 1]
        return out
    out = np.zeros(len(test))
    keys_tr = [(c.source.split()[0], c.crit) for c in train]
    keys_te = [(c.source.split()[0], c.crit) for c in test]
    for key in set(keys_te):
        itr = [i for i, k in enumerate(keys_tr) if k == key]
        ite = [i for i, k in enumerate(keys_te) if k == key]
        y = ytr[itr]
        if len(set(y)) < 2:
            out[ite] = 0.5 * 0 + (y.mean() if len(y) else 0.5)
            continue
        m = LogisticRegression(C=c_reg, max_iter=3000).fit(xtr[itr], y)
        out[ite] = m.predict_proba(xte[ite])[:, 1]
    return out


def draws_row(name: str, n: int, runs: Sequence[tuple[float, float, float]]) -> str:
    """One table row: mean accuracy (its range over the draws), mean kappa and AUC."""
    accs = [a for a, _, _ in runs]
    return (
        f"{name} {n:3d} {statistics.mean(accs):6.1%} ({min(accs):5.1%}-{max(accs):5.1%}) "
        f"{statistics.mean(k for _, k, _ in runs):6.3f} "
        f"{statistics.mean(a for _, _, a in runs):6.3f}"
    )


def scores(cases: Sequence[Judged], p: np.ndarray) -> tuple[float, float, float]:
    gold = np.array([c.truth == "MET" for c in cases])
    pred = p > 0.5
    acc = float((gold == pred).mean())
    pg, pp = gold.mean(), pred.mean()
    pe = pg * pp + (1 - pg) * (1 - pp)
    kappa = (acc - pe) / (1 - pe) if pe < 1 else math.nan
    return acc, kappa, auc(list(gold), list(p))


def merge_parts() -> None:
    """Fold ``judge_ricechem.py``'s per-part caches into the ones ``load_ricechem`` reads."""
    for q in (1, 2, 3, 4):
        whole = FeatureCache(f"ricechem_q{q}")
        changed = False
        for part in ("train", "test"):
            piece = FeatureCache(f"ricechem_q{q}_{part}")
            for key, row in piece.rows.items():
                if whole.rows.get(key) != row:
                    whole.rows[key] = row
                    changed = True
        if changed:
            whole.save()


def no_labels(rc: dict[int, dict[str, list[Judged]]], parts: Sequence[str]) -> None:
    """Methods that use no label: the judge, and the judge smoothed over similar answers.

    Smoothing is transductive: each answer's log-odds on a criterion is averaged with
    those of its k most similar answers to the same question (cosine on the pooled
    submission states), which needs only the answers being graded.
    """
    print(f"\nno labels ({'+'.join(parts)} answers)")
    print(f"{'method':40} {'n':>5} {'acc':>6} {'kappa':>6} {'AUC':>6} {'MET%':>6}")
    cases = [c for q in rc for part in parts for c in rc[q][part]]

    def show(name: str, p: np.ndarray) -> None:
        acc, kappa, a = scores(cases, p)
        print(f"{name:40} {len(cases):5d} {acc:6.1%} {kappa:6.3f} {a:6.3f} {(p > 0.5).mean():6.1%}")

    show("always MET", np.full(len(cases), 0.75))
    show("judge alone", np.array([c.probabilities.get("MET", 0.0) for c in cases]))
    lo_all = np.array([logodds(c) for c in cases])
    for share in (0.2, 0.3, 0.4, 0.5):  # each criterion's least likely answers are UNMET
        z = np.zeros(len(cases))
        groups: dict[tuple[str, int], list[int]] = {}
        for i, c in enumerate(cases):
            groups.setdefault((c.source.split()[0], c.crit), []).append(i)
        for idx in groups.values():
            cut = np.quantile(lo_all[idx], share)
            z[idx] = lo_all[idx] - cut + 1e-6
        show(f"each criterion's lowest {share:.0%} UNMET", 1 / (1 + np.exp(-z)))
    for blk in ("s16", "s24", "final"):
        for k in (5, 10):
            z = np.zeros(len(cases))
            for q in rc:
                qc = [(i, c) for i, c in enumerate(cases) if c.source.split()[0] == f"q{q}"]
                items = sorted({c.item for _, c in qc})
                if not items:
                    continue
                emb = {}
                for _, c in qc:
                    emb.setdefault(c.item, block(c, blk) if blk != "final" else None)
                if blk == "final":  # the answer's mean decision state over its criteria
                    acc: dict[int, list[np.ndarray]] = {}
                    for _, c in qc:
                        acc.setdefault(c.item, []).append(block(c, "final"))
                    emb = {i: np.mean(v, axis=0) for i, v in acc.items()}
                x = np.stack([emb[i] for i in items]).astype(np.float64)
                x = x - x.mean(axis=0)
                x /= np.linalg.norm(x, axis=1, keepdims=True) + 1e-9
                sim = x @ x.T
                pos = {i: n for n, i in enumerate(items)}
                lo = {(c.item, c.crit): logodds(c) for _, c in qc}
                for gi, c in qc:
                    near = np.argsort(-sim[pos[c.item]])[: k + 1]
                    vals = [lo.get((items[j], c.crit)) for j in near]
                    z[gi] = np.mean([v for v in vals if v is not None])
            show(f"judge smoothed over {k} nearest ({blk})", 1 / (1 + np.exp(-z)))


def compare_orders(rc: dict[int, dict[str, list[Judged]]], ns: Sequence[int], repeats: int) -> None:
    """The label page's orders: the first N answers of each question labelled, test scored.

    The probe is today's (``final``, C=0.01); the pool is each question's judged train
    answers, the score is on the test split.
    """
    test = [c for q in rc for c in rc[q]["test"]]
    print(f"\nlabel orders: first N of each question's judged train answers; test {len(test)}")
    print(f"{'order':12} {'N':>3} {'acc':>6} {'(min-max)':>13} {'kappa':>6} {'AUC':>6}")
    for n in ns:
        for name in ("random", "uncertain", "diverse"):
            runs = []
            for r in range(repeats):
                train: list[Judged] = []
                for q in rc:
                    by_item: dict[int, list[Judged]] = {}
                    for c in rc[q]["train"]:
                        by_item.setdefault(c.item, []).append(c)
                    order = label_orders(by_item, seed=r)[name][:n]
                    train += [c for i in order for c in by_item[i]]
                p = fit_predict(train, test, feats(["final"]), 0.01)
                runs.append(scores(test, p))
            print(draws_row(f"{name:12}", n, runs))


def load(folder: str | None, select: str, n_max: int) -> dict[int, dict[str, list[Judged]]]:
    """RiceChem's judged answers that carry every block, by question and split.

    ``select="any"`` (a partial run) makes every judged answer a pool to draw labels from;
    questions with no more than ``n_max`` judged train answers are left out.
    """
    merge_parts()
    rc = load_ricechem(ricechem_dir(folder), None, True)
    for q in rc:
        for part in ("train", "test"):
            rc[q][part] = [c for c in rc[q][part] if c.features and len(c.features) > 4000]
        if select == "any":
            rc[q]["train"] = rc[q]["train"] + rc[q]["test"]
    rc = {q: v for q, v in rc.items() if len({c.item for c in v["train"]}) > n_max}
    print("questions with enough judged answers:", ", ".join(f"q{q}" for q in rc))
    return rc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ricechem")
    ap.add_argument("--select", choices=["train", "test", "any"], default="train")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--n", type=int, nargs="*", default=[10])
    ap.add_argument("--configs", nargs="*")
    ap.add_argument("--no-labels", action="store_true", help="only the methods that use none")
    ap.add_argument(
        "--orders", action="store_true", help="which answers to label first: the orders compared"
    )
    args = ap.parse_args()
    rc = load(args.ricechem, args.select, max(args.n))
    if args.no_labels:
        no_labels(rc, ["train"] if args.select != "test" else ["test"])
        return
    if args.orders:
        compare_orders(rc, args.n, args.repeats)
        return
    d_layers = [b for b in BLOCKS if b.startswith("d")]
    s_layers = [b for b in BLOCKS if b.startswith("s")]
    configs: dict[str, dict[str, object]] = {
        "final C=.01 (today)": {"feat": feats(["final"]), "c": 0.01},
    }
    for b in d_layers:
        configs[f"{b} C=.01"] = {"feat": feats([b]), "c": 0.01}
    configs["d14+d18+d22 C=.003"] = {"feat": feats(["d14", "d18", "d22"]), "c": 0.003}
    configs["d12..d24 concat C=.002"] = {"feat": feats(d_layers[1:]), "c": 0.002}
    for b in s_layers:
        configs[f"{b} per-criterion C=.01"] = {"feat": feats([b]), "c": 0.01, "per": True}
    configs["final+s16 per-criterion C=.01"] = {
        "feat": feats(["final", "s16"]),
        "c": 0.01,
        "per": True,
    }
    configs["d18 unlabelled-standardised C=.01"] = {"feat": feats(["d18"]), "c": 0.01, "unl": True}
    configs["d18 PCA32 of all answers C=.1"] = {
        "feat": feats(["d18"]),
        "c": 0.1,
        "unl": True,
        "pca": 32,
    }
    configs["ensemble final,d20,d22,d24 C=.01"] = {
        "feat": feats(["final"]),
        "c": 0.01,
        "ens": [["final"], ["d20"], ["d22"], ["d24"]],
    }
    configs["ensemble final,d16..d24 C=.01"] = {
        "feat": feats(["final"]),
        "c": 0.01,
        "ens": [["final"], ["d16"], ["d18"], ["d20"], ["d22"], ["d24"]],
    }
    configs["final unlabelled-standardised C=.01"] = {
        "feat": feats(["final"]),
        "c": 0.01,
        "unl": True,
    }
    configs["final C=.003"] = {"feat": feats(["final"]), "c": 0.003}
    configs["final C=.03"] = {"feat": feats(["final"]), "c": 0.03}
    if args.configs:
        configs = {k: v for k, v in configs.items() if any(s in k for s in args.configs)}
    print(f"select on {args.select}; {args.repeats} draws per N")
    print(f"{'config':40} {'N':>3} {'acc':>6} {'(min-max)':>13} {'kappa':>6} {'AUC':>6}")
    for n in args.n:
        for name, cfg in configs.items():
            runs = []
            for r in range(args.repeats):
                rng = random.Random(1000 * n + r)
                train: list[Judged] = []
                held: list[Judged] = []
                for q in rc:
                    items = sorted({c.item for c in rc[q]["train"]})
                    chosen = set(rng.sample(items, min(n, len(items))))
                    train += [c for c in rc[q]["train"] if c.item in chosen]
                    if args.select in ("train", "any"):
                        held += [c for c in rc[q]["train"] if c.item not in chosen]
                    else:
                        held += rc[q]["test"]
                unl = held if cfg.get("unl") else ()
                p = fit_predict(
                    train,
                    held,
                    cfg["feat"],  # type: ignore[arg-type]
                    float(cfg["c"]),  # type: ignore[arg-type]
                    per_criterion=bool(cfg.get("per")),
                    unlabelled=unl,
                    pca=int(cfg.get("pca", 0)),  # type: ignore[call-overload]
                    ensemble=cfg.get("ens", ()),  # type: ignore[arg-type]
                )
                runs.append(scores(held, p))
            print(draws_row(f"{name:40}", n, runs))


# -- which answers to label first ---------------------------------------------------
def label_orders(
    answers: dict[int, list[Judged]], seed: int, pooled_block: str = "s16"
) -> dict[str, list[int]]:
    """Orders of one question's answers (item ids) a person would label them in."""
    from types import SimpleNamespace

    from rubricjudge._label._judged import Judged as LabelJudged
    from rubricjudge._label._order import order_items

    items = sorted(answers)
    judged = []
    for i in items:
        row = {}
        for c in answers[i]:
            p = c.probabilities.get("MET", 0.0)
            ans = "MET" if p >= 0.5 else "UNMET"
            row[str(c.crit)] = LabelJudged(answer=ans, confidence=max(p, 1 - p), reason="")
        judged.append(row)
    ds = SimpleNamespace(items=items, get_item_query=lambda i: "q")
    out = {
        name: [items[k] for k in order_items(name, ds, judged, seed=seed)]
        for name in ("random", "uncertain")
    }
    # diversity: farthest-first over the pooled submission states (k-center greedy)
    x = np.stack([block(answers[i][0], pooled_block) for i in items]).astype(np.float64)
    x = (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-3)
    rng = random.Random(seed)
    first = rng.randrange(len(items))
    chosen = [first]
    dist = np.linalg.norm(x - x[first], axis=1)
    while len(chosen) < len(items):
        k = int(np.argmax(dist))
        chosen.append(k)
        dist = np.minimum(dist, np.linalg.norm(x - x[k], axis=1))
    out["diverse"] = [items[k] for k in chosen]
    return out


if __name__ == "__main__":
    main()
