"""The numbers and tables of each report section, as escaped HTML fragments."""

from __future__ import annotations

import html
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _plots
from ._data import RunData, leaves

__all__ = ["criteria_section", "human_section", "item_rows", "overview_section"]


def esc(value: Any) -> str:
    """HTML-escaped text of ``value``."""
    return html.escape(str(value), quote=True)


def _fmt(v: float | None, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.{digits}f}"


def _table(head: Sequence[str] | None, rows: Sequence[Sequence[Any]], cls: str = "") -> str:
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    if head is None:
        return f"<table class='{cls}'><tbody>{body}</tbody></table>"
    th = "".join(f"<th scope='col'>{esc(h)}</th>" for h in head)
    return f"<table class='{cls}'><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _bootstrap_mean(values: list[float], n: int = 1000) -> tuple[float, float]:
    if len(values) < 2:
        return (math.nan, math.nan)
    arr = np.asarray(values)
    rng = np.random.default_rng(0)
    means = arr[rng.integers(0, len(arr), size=(n, len(arr)))].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    return float(lo), float(hi)


def overview_section(run: RunData) -> str:
    """Items, score distribution, pass rate, cost, tokens, calls, errors and latency."""
    done = [r for r in run.reports if r is not None]
    scores = [r.score for r in done if r.score is not None]
    lo, hi = _bootstrap_mean(scores)
    mean = sum(scores) / len(scores) if scores else math.nan
    passes = [r.passed for r in done if r.passed is not None]
    threshold = next((t for t in run.thresholds if t is not None), None)
    costs = [r.completion_cost for r in done]
    cost = "unknown" if any(c is None for c in costs) else f"${sum(c or 0.0 for c in costs):.4f}"
    tokens = sum(r.token_usage.total_tokens for r in done if r.token_usage is not None)
    categories: Counter[str] = Counter()
    latencies: list[float] = []
    for r in done:
        if r.error:
            categories["item failed"] += 1
        for cr in leaves(r):
            if cr.error_category:
                categories[cr.error_category] += 1
            info = cr.llm_invocation or {}
            if isinstance(info.get("latency_s"), int | float):
                latencies.append(float(info["latency_s"]))
    pct = (
        ", ".join(f"p{q}: {np.percentile(latencies, q):.2f} s" for q in (50, 90, 99))
        if latencies
        else "–"
    )
    rows = [
        ("items", f"{len(done)} graded of {len(run.reports)}"),
        ("mean score", f"{_fmt(mean)} (95% bootstrap interval {_fmt(lo)}–{_fmt(hi)})"),
        (
            "pass rate",
            (
                f"{sum(passes) / len(passes):.1%} of {len(passes)} items with a pass_threshold"
                + (f" ({threshold:g})" if threshold is not None else "")
            )
            if passes
            else "–",
        ),
        (
            "judge calls",
            f"{sum(r.judge_calls for r in done)} ({sum(r.cached_calls for r in done)} cached)",
        ),
        ("tokens", f"{tokens:,}"),
        ("cost", cost),
        ("errors", ", ".join(f"{k}: {v}" for k, v in categories.most_common()) or "none"),
        ("judge latency", pct),
    ]
    table = _table(None, rows, "facts")
    plot = (
        _plots.histogram(
            scores, title="Score distribution", key="scores", xlabel="score", threshold=threshold
        )
        if scores
        else "<p>No item has a score.</p>"
    )
    return f"<section id='overview'><h2>Overview</h2>{table}{plot}</section>"


def _answer(cr: Any) -> str:
    if cr.error is not None and cr.verdict is None and cr.selection is None:
        return "error"
    if cr.selection is not None:
        return str(cr.selection.label)
    return cr.verdict.value if cr.verdict is not None else "–"


def criteria_section(run: RunData) -> str:
    """Per criterion: the answers given, confidence where judges reported it, agreement."""
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
                    "requirement": cr.criterion.requirement,
                },
            )
            g["answers"][_answer(cr)] += 1
            g["errors"] += cr.error is not None
            if cr.confidence is not None:
                g["conf"].append(cr.confidence)
            if cr.agreement is not None:
                g["agree"].append(cr.agreement)
    rows = []
    plots: list[str] = []
    for k, (key, g) in enumerate(groups.items()):
        answers = ", ".join(f"{a}: {n}" for a, n in g["answers"].most_common())
        conf = _fmt(float(np.mean(g["conf"]))) if g["conf"] else "–"
        agree = _fmt(float(np.mean(g["agree"]))) if g["agree"] else "–"
        rows.append((key, g["requirement"][:200], answers, g["errors"], conf, agree))
        if g["conf"] and len(plots) < 24:
            plots.append(
                _plots.histogram(
                    g["conf"],
                    title=f"Confidence: {key}",
                    key=f"conf{k}",
                    xlabel="confidence",
                    bins=10,
                    low=0.5 if min(g["conf"]) >= 0.5 else 0.0,
                )
            )
    table = _table(
        ["criterion", "requirement", "answers", "errors", "mean confidence", "ensemble agreement"],
        rows,
    )
    grid = f"<div class='grid'>{''.join(plots)}</div>" if plots else ""
    return f"<section id='criteria'><h2>Per criterion</h2>{table}{grid}</section>"


def _ci(m: Any, name: str) -> str:
    v = m.metrics.get(name)
    ci = m.intervals.get(name)
    base = _fmt(v)
    return f"{base} [{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else base


def human_section(run: RunData) -> str:
    """Agreement with the dataset's human labels, when the run has them."""
    m = run.metrics
    if m is None:
        return ""
    rows = [
        (c.key, c.kind, c.n, _ci(c, "accuracy"), _ci(c, "kappa"))
        for c in ([m.pooled] if m.pooled is not None else []) + list(m.criteria)
    ]
    parts = [
        "<section id='humans'><h2>Against human labels</h2>",
        _table(["criterion", "kind", "n", "accuracy [95% CI]", "kappa [95% CI]"], rows),
    ]
    for c in m.criteria[:30]:
        head = ["human \\ judge", *c.labels]
        body = [[label, *row] for label, row in zip(c.labels, c.confusion, strict=False)]
        parts.append(
            f"<details><summary>Confusion matrix: {esc(c.key)}</summary>"
            f"{_table(head, body, 'confusion')}</details>"
        )
    cc = m.confidence_calibration
    if cc is not None and cc.bins:
        parts.append(
            f"<p>Confidence against agreement on {cc.n} answers: Brier {_fmt(cc.brier)}, "
            f"expected calibration error {_fmt(cc.ece)}.</p>"
        )
        parts.append(_plots.reliability(cc.bins, title="Reliability diagram", key="reliability"))
    if m.estimates:
        est_rows = []
        for what, ests in m.estimates.items():
            for kind, e in ests.items():
                est_rows.append(
                    (
                        what.replace("_", " "),
                        kind,
                        _fmt(e.estimate),
                        f"{_fmt(e.low)}–{_fmt(e.high)}",
                        e.n_labelled,
                        e.n_unlabelled,
                    )
                )
        parts.append("<h3>Estimates</h3>")
        parts.append(
            _table(
                ["quantity", "estimate", "value", "95% interval", "labelled", "unlabelled"],
                est_rows,
            )
        )
    parts.append("</section>")
    return "".join(parts)


def _dump(model: Any) -> Any:
    return None if model is None else model.model_dump(mode="json")


def item_rows(run: RunData) -> list[dict[str, Any]]:
    """One plain record per item for the page's table and detail view."""
    out = []
    truth_of: list[Any] = []
    if run.dataset is not None:
        truth_of = [it.ground_truth for it in run.dataset.items]
    for i, r in enumerate(run.reports):
        truth = truth_of[i] if i < len(truth_of) else None
        crits = []
        disagree = 0
        for j, cr in enumerate(leaves(r)):
            gold = None
            if truth is not None and j < len(truth) and truth[j] is not None:
                gold = getattr(truth[j], "value", truth[j])
            said = _answer(cr)
            if gold is not None and said not in ("error", "–") and said != gold:
                disagree += 1
            crits.append(
                {
                    "key": cr.criterion.key or f"#{j}",
                    "requirement": cr.criterion.requirement,
                    "weight": cr.criterion.weight,
                    "answer": said,
                    "human": gold,
                    "reason": cr.reason,
                    "confidence": cr.confidence,
                    "error": cr.error,
                    "evidence": cr.evidence_check.model_dump(mode="json")
                    if cr.evidence_check
                    else None,
                    "calibration": cr.calibration.model_dump(mode="json")
                    if cr.calibration
                    else None,
                    "escalation": cr.escalation.model_dump(mode="json") if cr.escalation else None,
                    "votes": [v.model_dump(mode="json") for v in cr.votes or []],
                    "call": cr.llm_invocation,
                }
            )
        out.append(
            {
                "id": run.ids[i],
                "score": None if r is None else r.score,
                "passed": None if r is None else r.passed,
                "errors": 0 if r is None else r.error_count,
                "error": "not graded" if r is None else r.error,
                "disagree": disagree,
                "submission": run.submissions[i],
                "criteria": crits,
            }
        )
    return out
