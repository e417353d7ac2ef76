"""``gate``: is a new run worse than a baseline, beyond what noise explains?

Items pair up by id. Over the ``n`` paired items the change is the mean of the
per-item differences ``d_i = new_i - baseline_i``, and its interval is the paired
bootstrap percentile interval at ``confidence``: items are resampled with their
two values together, so what both runs share (an item's difficulty) cancels. The
quantiles are read at the expanded level of ``_student`` (the small-sample
correction of a percentile interval of a mean), so that few items do not make the
interval too narrow.

**The rule.** The new run fails when it has items that failed (the judge failed
on a criterion that carries weight, or the grader raised) where the baseline graded
them: a failure of the new run is never a paired improvement, and the result names
the errors. Otherwise it fails when it is *significantly worse*, when the whole
interval lies below ``-max_drop``: ``high < -max_drop``. That is a one-sided test at level
``(1 - confidence) / 2`` of "the true change is at least ``-max_drop``": a new run
exactly ``max_drop`` worse fails about that often (2.5% at the default 0.95), a
better one less often. ``benchmarks/gate_false_alarms.py`` measures the rate on
simulated runs.

Where both runs carry human labels (run directories whose datasets have ground
truth), the change is also estimated by prediction-powered inference on the paired
differences (see ``_ppi``): judge differences on every pair, rectified by the
items labelled in both runs. It is reported; the verdict stays the bootstrap's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._errors import ConfigError
from ._gate_pairs import new_failures, pair_sides, refuse_if_few
from ._gate_result import Change, CriterionChange, GateResult, PairCounts
from ._gate_values import SideValues, check_metric, has_labels, parse_metric, side_values
from ._ppi import ppi_mean
from ._student import expanded_confidence
from ._tables import FloatArray, percentile_interval, resample_weights

__all__ = ["bootstrap_means", "gate_runs", "paired_change"]

# bound on the elements of one block of resample weights (resamples x items)
_BLOCK_ELEMENTS = 1_000_000


def bootstrap_means(
    columns: FloatArray, resamples: int, seed: int | None, progress: Any = None
) -> FloatArray:
    """Means of each column over its defined (non-NaN) entries, per bootstrap resample.

    ``columns`` has shape ``(k, n)``; every column shares each resample of the ``n``
    items (the pairing across columns is kept). Returns shape ``(resamples, k)``,
    NaN where a resample drew no defined entry of a column. Resamples are drawn in
    blocks from one stream, so memory stays bounded however many items there are;
    ``progress`` (a run ``Progress``) counts them.
    """
    k, n = columns.shape
    present = ~np.isnan(columns)
    filled = np.where(present, columns, 0.0)
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, k))
    step = max(1, _BLOCK_ELEMENTS // max(n, 1))
    if progress is not None:
        progress.grow(resamples)
    for lo in range(0, resamples, step):
        hi = min(resamples, lo + step)
        w = resample_weights(n, hi - lo, rng)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[lo:hi] = (w @ filled.T) / (w @ present.T)
        if progress is not None:
            progress.advance(count=hi - lo)
    return out


def paired_change(
    baseline: FloatArray,
    new: FloatArray,
    *,
    confidence: float = 0.95,
    bootstrap: int = 2000,
    seed: int | None = 0,
) -> Change:
    """The mean of ``new - baseline`` (paired by position) with its bootstrap interval."""
    d = np.asarray(new, dtype=np.float64) - np.asarray(baseline, dtype=np.float64)
    reps = bootstrap_means(d[None, :], bootstrap, seed)[:, 0]
    low, high = percentile_interval(reps, expanded_confidence(confidence, d.size))
    return Change(estimate=float(d.mean()), low=low, high=high, n=int(d.size))


def _check_args(max_drop: float, confidence: float, bootstrap: int, min_pairs: int) -> None:
    if not (math.isfinite(max_drop) and max_drop >= 0):
        raise ConfigError(f"--max-drop {max_drop!r} must be a number >= 0 (0: any drop fails)")
    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"--confidence {confidence!r} must lie strictly between 0 and 1")
    if bootstrap < 100:
        raise ConfigError(f"--bootstrap {bootstrap!r} is too few resamples; give at least 100")
    if min_pairs < 2:
        raise ConfigError(f"--min-pairs {min_pairs!r} must be at least 2")


def _criteria(
    base: SideValues,
    new: SideValues,
    ib: np.ndarray,
    jn: np.ndarray,
) -> tuple[list[str], list[FloatArray], list[tuple[float, float, int]]]:
    keys, columns, points = [], [], []
    for key in sorted(set(base.criteria) & set(new.criteria)):
        cb, cn = base.criteria[key][ib], new.criteria[key][jn]
        both = ~(np.isnan(cb) | np.isnan(cn))
        if not both.any():
            continue
        keys.append(key)
        columns.append(np.where(both, cn - cb, np.nan))
        points.append((float(cb[both].mean()), float(cn[both].mean()), int(both.sum())))
    return keys, columns, points


def _human(
    base: SideValues, new: SideValues, ib: np.ndarray, jn: np.ndarray, d: FloatArray, conf: float
) -> tuple[Any, str | None]:
    hb, hn = base.human[ib], new.human[jn]
    labelled = ~(np.isnan(hb) | np.isnan(hn))
    if labelled.sum() >= 2:
        est = ppi_mean(
            d[~labelled].tolist(),
            d[labelled].tolist(),
            (hn - hb)[labelled].tolist(),
            confidence=conf,
        )
        return est, None
    if not (base.labelled or new.labelled):
        return None, None
    if not (base.labelled and new.labelled):
        which = "baseline" if base.labelled else "new run"
        return None, (
            f"only the {which} has human labels; a prediction-powered estimate of the change "
            "needs labels in both runs"
        )
    return None, (
        f"no prediction-powered estimate: {int(labelled.sum())} paired items carry human labels "
        "in both runs (it needs 2)"
    )


def _side(run: Any, flag: str, progress: Any) -> Any:
    if isinstance(run, str | Path):
        # deferred: reading a run loads the run machinery (about 1 s), needed only here
        from .._runs._read import read_graded

        progress.status(f"reading {flag}")
        return read_graded(run, flag=flag, progress=progress)
    return run


def _values(
    runs: tuple[Any, Any], metric: Any, pass_threshold: float | None, progress: Any
) -> tuple[SideValues, SideValues]:
    labelled = has_labels(runs[0]) and has_labels(runs[1])
    progress.status("human labels" if labelled else "")
    base, new = (
        side_values(r, metric, pass_threshold, with_human=labelled, progress=progress) for r in runs
    )
    return base, new


@dataclass(frozen=True)
class _Rule:
    max_drop: float
    confidence: float
    bootstrap: int
    seed: int | None


def _decide(
    sides: tuple[SideValues, SideValues],
    pairs: tuple[list[tuple[int, int]], PairCounts],
    rule: _Rule,
    progress: Any,
) -> GateResult:
    """The change over the pairs, its interval, the criteria's and the verdict."""
    (base, new), (pairs_list, counts) = sides, pairs
    ib = np.array([i for i, _ in pairs_list])
    jn = np.array([j for _, j in pairs_list])
    vb, vn = base.value[ib], new.value[jn]
    d = vn - vb
    keys, columns, points = _criteria(base, new, ib, jn)
    reps = bootstrap_means(np.vstack([d, *columns]), rule.bootstrap, rule.seed, progress)
    conf = rule.confidence
    low, high = percentile_interval(reps[:, 0], expanded_confidence(conf, d.size))
    criteria = []
    for c, (key, column, (pb, pn, n)) in enumerate(zip(keys, columns, points, strict=True)):
        lo, hi = percentile_interval(reps[:, c + 1], expanded_confidence(conf, n))
        est = float(np.nanmean(column))
        criteria.append(
            CriterionChange(key=key, n=n, baseline=pb, new=pn, change=est, low=lo, high=hi)
        )
    criteria.sort(key=lambda c: (c.change, c.key))
    human, note = _human(base, new, ib, jn, d, conf)
    left_out = max(base.training_left_out, new.training_left_out)
    if left_out:
        said = f"{left_out} labelled items left out: a run's calibration was fitted on them"
        note = f"{note}; {said}" if note else said
    worse = high < -rule.max_drop
    return GateResult(
        metric="",
        baseline_source="",
        new_source="",
        verdict="fail" if worse else "pass",
        rule=f"fail when the upper end of the {conf:.0%} interval of the change "
        f"(new - baseline) is below {-rule.max_drop if rule.max_drop else 0.0:g}",
        max_drop=rule.max_drop,
        confidence=conf,
        bootstrap=rule.bootstrap,
        seed=rule.seed,
        baseline=float(vb.mean()),
        new=float(vn.mean()),
        change=Change(estimate=float(d.mean()), low=low, high=high, n=int(d.size)),
        human=human,
        human_note=note,
        criteria=criteria,
        counts=counts,
    )


def gate_runs(
    baseline: Any,
    new: Any,
    *,
    metric: str = "mean_score",
    max_drop: float = 0.0,
    confidence: float = 0.95,
    bootstrap: int = 2000,
    seed: int | None = 0,
    min_pairs: int = 10,
    min_coverage: float = 0.9,
    pass_threshold: float | None = None,
    progress: Any = None,
) -> GateResult:
    """Compare ``new`` with ``baseline`` item by item and decide whether it is worse.

    Args:
        baseline: a run directory, a ``grade`` JSONL file, or a read ``GradedRun``.
        new: the same, for the run to judge.
        metric: ``mean_score``, ``pass_rate`` or ``criterion:NAME``.
        max_drop: the drop allowed; the run fails when the whole interval of the
            change lies below ``-max_drop`` (0: any significant drop fails).
        confidence: level of the two-sided interval of the change.
        bootstrap: paired bootstrap resamples.
        seed: seed of the resampling.
        min_pairs: refuse with fewer paired items.
        min_coverage: refuse when fewer than this share of the baseline's items that
            could pair did (N/A items aside).
        pass_threshold: for ``pass_rate``, pass at this score instead of each
            rubric's ``pass_threshold``.
        progress: None draws a bar on stderr when it is a terminal (reading big
            runs takes seconds); True/False force it; a callable gets ``(done, total)``.

    Raises:
        ConfigError: a bad argument, unreadable runs, or too few items pair up (the
            message gives the counts).
    """
    _check_args(max_drop, confidence, bootstrap, min_pairs)
    if pass_threshold is not None and not 0.0 <= pass_threshold <= 1.0:
        raise ConfigError(f"--pass-threshold {pass_threshold!r} is outside [0, 1]")
    m = parse_metric(metric)
    # deferred: the progress bar loads tqdm
    from .._runs._progress import make_progress

    bar = make_progress(progress, None)
    try:
        b_run, n_run = _side(baseline, "BASELINE", bar), _side(new, "NEW", bar)
        base, nw = _values((b_run, n_run), m, pass_threshold, bar)
        check_metric(m, [base, nw], pass_threshold)
        where = (f"baseline {b_run.source}", f"new run {n_run.source}")
        pairs, counts = pair_sides(base, nw, where)
        failures = new_failures(base, nw)
        rule = _Rule(max_drop, confidence, bootstrap, seed)
        try:
            refuse_if_few(counts, min_pairs, min_coverage)
        except ConfigError:
            if not failures:
                raise
            # too few pairs to measure a change, but the new run already failed
            result = _unmeasured(rule, counts)
        else:
            bar.status("bootstrap")
            result = _decide((base, nw), (pairs, counts), rule, bar)
    finally:
        bar.close()
    update: dict[str, Any] = {
        "metric": str(m),
        "baseline_source": b_run.source,
        "new_source": n_run.source,
    }
    if failures:  # a failure of the new run is never a paired improvement
        update.update(verdict="fail", new_failures=failures)
    return result.model_copy(update=update)


def _unmeasured(rule: _Rule, counts: PairCounts) -> GateResult:
    """A result without a change (too few pairs), for a new run that failed anyway."""
    nan = math.nan
    return GateResult(
        metric="",
        baseline_source="",
        new_source="",
        verdict="fail",
        rule="fail when the new run has judge failures the baseline has not",
        max_drop=rule.max_drop,
        confidence=rule.confidence,
        bootstrap=rule.bootstrap,
        seed=rule.seed,
        baseline=nan,
        new=nan,
        change=Change(estimate=nan, low=nan, high=nan, n=counts.paired),
        criteria=[],
        counts=counts,
    )
