"""How often `rubricjudge gate` fails a run that is not worse, and how often it catches a drop.

Simulated pairs of runs of ``n`` items: each item has a latent quality q (uniform in
0.2-0.95, shared by both runs); a run's judge says MET on each of three criteria
(weights 10, 5, 3) with probability q + shift, independently per run. The mean score
changes by exactly ``shift``; the pass rate (score >= 0.6) by about that much.

- false alarms: shift = -max_drop (the boundary of "not worse"); the rule fails
  ``high < -max_drop``, so the rate should be near (1 - confidence) / 2.
- power: shift = -max_drop - effect; how often the drop is caught.

Run: python benchmarks/gate_false_alarms.py [--sims 2000] [--n 20 50 100 400 1000]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from rubricjudge._metrics._gate import paired_change

WEIGHTS = np.array([10.0, 5.0, 3.0])


def simulate(
    rng: np.random.Generator, n: int, shift: float, metric: str
) -> tuple[np.ndarray, np.ndarray]:
    q = rng.uniform(0.2, 0.95, size=n)[:, None]
    base = (rng.random((n, 3)) < q).astype(float) @ WEIGHTS / WEIGHTS.sum()
    new = (rng.random((n, 3)) < q + shift).astype(float) @ WEIGHTS / WEIGHTS.sum()
    if metric == "pass_rate":
        return (base >= 0.6).astype(float), (new >= 0.6).astype(float)
    return base, new


def rate(
    n: int,
    shift: float,
    max_drop: float,
    metric: str,
    sims: int,
    confidence: float,
    bootstrap: int,
) -> float:
    rng = np.random.default_rng([n, round(abs(shift) * 1000), len(metric)])
    alarms = 0
    for k in range(sims):
        base, new = simulate(rng, n, shift, metric)
        change = paired_change(base, new, confidence=confidence, bootstrap=bootstrap, seed=k)
        alarms += change.high < -max_drop
    return alarms / sims


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=2000)
    ap.add_argument("--n", type=int, nargs="+", default=[20, 50, 100, 400, 1000])
    ap.add_argument("--confidence", type=float, default=0.95)
    ap.add_argument("--bootstrap", type=int, default=2000)
    ap.add_argument("--max-drop", type=float, default=0.0)
    ap.add_argument("--effect", type=float, default=0.05, help="true drop beyond max-drop")
    args = ap.parse_args()
    nominal = (1 - args.confidence) / 2
    se = math.sqrt(nominal * (1 - nominal) / args.sims)
    print(
        f"{args.sims} simulated run pairs per cell, {args.bootstrap} resamples, confidence "
        f"{args.confidence}, max drop {args.max_drop}; nominal false-alarm rate {nominal:.4f} "
        f"(one simulation standard error {se:.4f})"
    )
    print(f"| metric | n | false alarms | caught a drop of {args.effect} beyond | s |")
    print("|---|---|---|---|---|")
    for metric in ("mean_score", "pass_rate"):
        for n in args.n:
            t0 = time.perf_counter()
            alarm = rate(
                n, -args.max_drop, args.max_drop, metric, args.sims, args.confidence, args.bootstrap
            )
            power = rate(
                n,
                -args.max_drop - args.effect,
                args.max_drop,
                metric,
                args.sims,
                args.confidence,
                args.bootstrap,
            )
            dt = time.perf_counter() - t0
            print(f"| {metric} | {n} | {alarm:.4f} | {power:.3f} | {dt:.0f} |", flush=True)


if __name__ == "__main__":
    main()
