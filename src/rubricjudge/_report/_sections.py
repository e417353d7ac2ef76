"""The overview and per-criterion sections, as escaped HTML fragments."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from . import _plots
from ._data import RunData, leaves
from ._html import answer_of, esc, fmt, table

__all__ = ["bootstrap_mean", "criteria_section", "overview_section"]

_BINARY_ORDER = ("MET", "UNMET", "CANNOT_ASSESS", "error", "–")


def bootstrap_mean(values: list[float], n: int = 2000) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of the mean of ``values`` (seeded)."""
    if len(values) < 2:
        return (math.nan, math.nan)
    arr = np.asarray(values, dtype=float)
    rng = np.random.default_rng(0)
    # resample in blocks so a 10,000-item run never holds n x 10,000 indices at once
    means = np.concatenate(
        [
            arr[rng.integers(0, len(arr), size=(min(200, n - s), len(arr)))].mean(axis=1)
            for s in range(0, n, 200)
        ]
    )
    lo, hi = np.quantile(means, [0.025, 0.975])
    return float(lo), float(hi)


def _timings(run: RunData, key: str) -> list[float]:
    """Every answer's ``key`` (``latency_s`` or ``queue_s``) from its invocation info."""
    out: list[float] = []
    for r in run.reports:
        for cr in leaves(r):
            info = cr.llm_invocation or {}
            if isinstance(info.get(key), int | float):
                out.append(float(info[key]))
    return out


def _pct(values: list[float]) -> str:
    if not values:
        return "–"
    parts = ", ".join(f"p{q} {np.percentile(values, q):.3f} s" for q in (50, 90, 99))
    return f"{parts} over {len(values)} answers"


def _errors(run: RunData) -> Counter[str]:
    categories: Counter[str] = Counter()
    for i, r in enumerate(run.reports):
        if r is None:
            failed = i < len(run.item_errors) and run.item_errors[i] is not None
            categories["item failed" if failed else "item not graded"] += 1
            continue
        if r.error:
            categories["item failed"] += 1
        for cr in leaves(r):
            if cr.error is not None:
                categories[cr.error_category or "unknown"] += 1
    return categories


def overview_section(run: RunData) -> str:
    """Items, score distribution, pass rate, cost, tokens, calls, errors and latency."""
    done = [r for r in run.reports if r is not None]
    scores = [r.score for r in done if r.score is not None]
    lo, hi = bootstrap_mean(scores)
    mean = sum(scores) / len(scores) if scores else math.nan
    passes = [r.passed for r in done if r.passed is not None]
    thresholds = {t for t in run.thresholds if t is not None}
    threshold = next(iter(thresholds)) if len(thresholds) == 1 else None
    # a grade JSONL does not say the threshold: only the items that have one are counted
    at = (
        f" ({threshold:g})"
        if threshold is not None
        else (", thresholds differ by item" if thresholds else "")
    )
    costs = [r.completion_cost for r in done]
    cost = "unknown" if any(c is None for c in costs) else f"${sum(c or 0.0 for c in costs):.4f}"
    usage = [r.token_usage for r in done if r.token_usage is not None]
    queued = _timings(run, "queue_s")
    calls = sum(r.judge_calls for r in done)
    cached = sum(r.cached_calls for r in done)
    rows: list[tuple[str, str]] = [
        ("items", f"{len(scores)} scored, {len(done)} graded, {len(run.reports)} in the run"),
        *(
            [
                (
                    "not reached",
                    f"{run.not_attempted} items of the dataset, never graded "
                    "(--max-items, or the run stopped)",
                )
            ]
            if run.not_attempted
            else []
        ),
        ("mean score", f"{fmt(mean)} (95% bootstrap interval {fmt(lo)} to {fmt(hi)})"),
        ("median score", fmt(float(np.median(scores))) if scores else "–"),
        (
            "pass rate",
            f"{sum(passes) / len(passes):.1%} of {len(passes)} items with a pass_threshold{at}"
            if passes
            else "–",
        ),
        ("judge calls", f"{calls:,} ({cached:,} from the response cache)"),
        (
            "tokens",
            f"{sum(u.total_tokens for u in usage):,} "
            f"({sum(u.prompt_tokens for u in usage):,} prompt, "
            f"{sum(u.completion_tokens for u in usage):,} completion)"
            if usage
            else "unknown",
        ),
        ("cost", cost),
        (
            "errors",
            ", ".join(f"{k}: {v}" for k, v in _errors(run).most_common()) or "none",
        ),
        ("judge latency (the calls' own time)", _pct(_timings(run, "latency_s"))),
    ]
    if any(q > 0 for q in queued):
        rows.append(("queue wait (limits, a busy local model)", _pct(queued)))
    if run.wall_s is not None:
        rows.append(("wall time", f"{run.wall_s:.1f} s"))
    plot = (
        _plots.histogram(
            scores, title="Score distribution", key="scores", xlabel="score", threshold=threshold
        )
        if scores
        else "<p>No item has a score.</p>"
    )
    facts = table(None, rows, "facts", caption="The run in numbers")
    return (
        f"<section id='overview'><h2>Overview</h2><div class='grid'>{facts}{plot}</div></section>"
    )


def _answer_order(counts: Counter[str], options: list[str]) -> list[tuple[str, int]]:
    known = [*options, *_BINARY_ORDER]
    ordered = [(a, counts[a]) for a in known if counts.get(a)]
    ordered += [(a, n) for a, n in counts.items() if a not in known]
    return ordered


def _groups(run: RunData) -> dict[str, dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for r in run.reports:
        for i, cr in enumerate(leaves(r)):
            key = cr.criterion.key or f"#{i}"
            g = groups.setdefault(
                key,
                {
                    "answers": Counter(),
                    "conf": [],
                    "agree": [],
                    "errors": 0,
                    "criterion": cr.criterion,
                    "escalated": 0,
                    "changed": 0,
                    "evidence_failed": 0,
                },
            )
            g["answers"][answer_of(cr)] += 1
            g["errors"] += cr.error is not None
            if cr.confidence is not None:
                g["conf"].append(cr.confidence)
            if cr.agreement is not None:
                g["agree"].append(cr.agreement)
            g["escalated"] += cr.escalation is not None
            g["changed"] += cr.calibration is not None and cr.calibration.changed
            g["evidence_failed"] += cr.evidence_check is not None and not cr.evidence_check.found
    return groups


def _drop_empty(
    head: list[str], rows: list[tuple[Any, ...]], *, first: int
) -> tuple[list[str], list[tuple[Any, ...]], list[str]]:
    """Leave out the columns from ``first`` on that hold nothing in any row."""
    keep = [i for i in range(len(head)) if i < first or any(r[i] != "–" for r in rows)]
    empty = [head[i] for i in range(len(head)) if i not in keep]
    return [head[i] for i in keep], [tuple(r[i] for i in keep) for r in rows], empty


def criteria_section(run: RunData) -> str:
    """Per criterion: the answers given, confidence where judges reported it, agreement."""
    groups = _groups(run)
    if not groups:
        return (
            "<section id='criteria'><h2>Per criterion</h2><p>No criterion was judged.</p></section>"
        )
    rows = []
    bars = []
    plots: list[str] = []
    for k, (key, g) in enumerate(groups.items()):
        crit = g["criterion"]
        options = [o.label for o in crit.options or []]
        answers = _answer_order(g["answers"], options)
        bars.append((key, answers, options))
        agree = g["agree"]
        rows.append(
            (
                key,
                crit.requirement[:200],
                f"{crit.weight:g}",
                ", ".join(f"{a}: {n}" for a, n in answers),
                g["errors"],
                fmt(float(np.mean(g["conf"]))) if g["conf"] else "–",
                fmt(float(np.mean(agree))) if agree else "–",
                f"{sum(a >= 1.0 for a in agree) / len(agree):.0%}" if agree else "–",
                g["escalated"] or "–",
                g["changed"] or "–",
                g["evidence_failed"] or "–",
            )
        )
        if g["conf"] and len(plots) < 24:
            plots.append(
                _plots.histogram(
                    g["conf"],
                    title=f"Confidence: {key}",
                    key=f"conf{k}",
                    xlabel="confidence in the answer given",
                    bins=10,
                    low=0.5 if min(g["conf"]) >= 0.5 else 0.0,
                )
            )
    head = [
        "criterion",
        "requirement",
        "weight",
        "answers",
        "errors",
        "mean confidence",
        "ensemble agreement",
        "unanimous",
        "escalated",
        "changed by calibration",
        "quote not found",
    ]
    head, rows, empty = _drop_empty(head, rows, first=5)
    parts = [
        "<section id='criteria'><h2>Per criterion</h2>",
        _plots.answer_bars(bars, title="Answers per criterion", key="answers"),
        "<div class='scroll'>",
        table(head, rows, caption="Answers, confidence and agreement per criterion"),
        "</div>",
        f"<p class='muted'>No answer had: {esc(', '.join(empty))}.</p>" if empty else "",
    ]
    if run.metrics is not None and run.metrics.inter_judge:
        ij = [
            (j.key, ", ".join(j.judges), j.units, fmt(j.krippendorff_alpha), fmt(j.fleiss_kappa))
            for j in run.metrics.inter_judge
        ]
        parts.append(
            table(
                ["criterion", "judges", "items", "Krippendorff's alpha", "Fleiss' kappa"],
                ij,
                caption="How much the ensemble's judges agree with each other",
            )
        )
    if plots:
        parts.append(f"<h3>Confidence</h3><div class='grid'>{''.join(plots)}</div>")
    parts.append("</section>")
    return "".join(parts)
