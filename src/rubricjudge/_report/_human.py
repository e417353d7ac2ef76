"""The section that compares the judge with the dataset's human labels.

The numbers come from :func:`rubricjudge._metrics._compute.compute_metrics` (the same as
``rubricjudge metrics``); this module only lays them out: agreement with
intervals, confusion matrices, the reliability diagram and the naive estimates
beside the prediction-powered ones.
"""

from __future__ import annotations

from typing import Any

from . import _plots
from ._data import RunData
from ._html import esc, fmt, table

__all__ = ["human_section"]

_NAMES = {
    "accuracy": "accuracy",
    "kappa": "Cohen's kappa",
    "mcc": "MCC",
    "qwk": "quadratic kappa",
    "adjacent_accuracy": "within one level",
    "macro_f1": "macro F1",
    "mae": "mean abs. error",
    "rmse": "RMSE",
}


def _ci(values: dict[str, float], intervals: dict[str, tuple[float, float]], name: str) -> str:
    v = values.get(name)
    ci = intervals.get(name)
    return f"{fmt(v)} [{fmt(ci[0])}, {fmt(ci[1])}]" if ci else fmt(v)


def _all_metrics(m: Any) -> str:
    rows = [(_NAMES.get(k, k), _ci(m.metrics, m.intervals, k)) for k in m.metrics]
    return table(["metric", "value [95% interval]"], rows)


def _confusion(c: Any) -> str:
    # cells shaded by their share of the row, so the diagonal stands out without reading numbers
    head = "".join(f"<th scope='col'>{esc(lab)}</th>" for lab in c.labels)
    body = []
    for label, row in zip(c.labels, c.confusion, strict=False):
        total = sum(row) or 1
        cells = "".join(
            f"<td class='num' style='background:rgba(76,114,176,{0.08 + 0.6 * n / total:.2f})'>"
            f"{n}</td>"
            for n in row
        )
        body.append(f"<tr><th scope='row'>{esc(label)}</th>{cells}</tr>")
    return (
        "<table class='confusion'><caption>rows: people, columns: judge</caption>"
        f"<thead><tr><th scope='col'>people \\ judge</th>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _per_label(c: Any) -> str:
    if not c.per_label:
        return ""
    rows = [
        (label, fmt(v["precision"]), fmt(v["recall"]), fmt(v["f1"]), int(v["support"]))
        for label, v in c.per_label.items()
    ]
    return table(["label", "precision", "recall", "F1", "support"], rows)


def _criterion_details(c: Any) -> str:
    counts = (
        f"{c.n} pairs; {c.n_judge_errors} judge errors, {c.n_missing} missing, "
        f"N/A: {c.n_na_truth} by people, {c.n_na_judge} by the judge"
    )
    return (
        f"<details><summary>{esc(c.key)}: confusion matrix and every metric</summary>"
        f"<p class='muted'>{esc(counts)}</p><div class='grid'>{_confusion(c)}"
        f"{_all_metrics(c)}{_per_label(c)}</div></details>"
    )


def _estimates(m: Any) -> str:
    rows = []
    for what, ests in m.estimates.items():
        for kind, e in ests.items():
            rows.append(
                (
                    f"{what.replace('_', ' ')}: {kind}",
                    fmt(e.estimate),
                    f"{fmt(e.low)} to {fmt(e.high)}",
                    e.n_labelled,
                    e.n_unlabelled,
                    e.method,
                )
            )
    head = ["estimate", "value", "95% interval", "labelled items", "unlabelled items", "method"]
    return (
        "<h3>Estimates</h3><p>The naive estimate trusts the judge everywhere; the human one "
        "uses the labelled items only; the prediction-powered one (PPI) corrects the judge's "
        "scores on every item by its error on the labelled ones.</p>" + table(head, rows)
    )


def _reliability(m: Any) -> str:
    cc = m.confidence_calibration
    if cc is None or not cc.bins:
        return ""
    rows = [
        (
            f"{fmt(b.get('low'), 2)} to {fmt(b.get('high'), 2)}",
            int(b["n"]),
            fmt(b["confidence"]),
            fmt(b["agreement"]),
        )
        for b in cc.bins
    ]
    return (
        "<h3>Confidence against agreement</h3>"
        f"<p>{cc.n} answers: mean confidence {fmt(cc.mean_confidence)}, agreement with people "
        f"{fmt(cc.agreement)}, Brier score {fmt(cc.brier)}, expected calibration error "
        f"{fmt(cc.ece)}. A judge whose confidence can be trusted sits on the diagonal.</p>"
        "<div class='grid'>"
        + _plots.reliability(cc.bins, title="Reliability diagram", key="reliability")
        + table(["confidence bin", "answers", "mean confidence", "agreement"], rows)
        + "</div>"
    )


def human_section(run: RunData) -> str:
    """Agreement with the dataset's human labels, when the run has them (else nothing)."""
    m = run.metrics
    if m is None:
        if run.metrics_error is None:
            return ""
        return (
            "<section id='humans'><h2>Against human labels</h2><p class='bad'>The dataset has "
            f"human labels, but they could not be compared: {esc(run.metrics_error)}</p></section>"
        )
    notes = [
        f"{m.items_judged} of {m.items_total} items judged",
        f"N/A and CANNOT_ASSESS: {m.na_mode}",
        f"intervals from {m.bootstrap} bootstrap resamples of items",
    ]
    if m.excluded_items:
        notes.append(
            f"{m.excluded_items} items the calibration was fitted on left out "
            "(report --include-training counts them)"
        )
    if m.verdicts == "raw":
        notes.append("the judge's own verdicts, before calibration")
    elif m.calibrated_answers:
        notes.append(f"{m.calibrated_answers} answers changed by calibration")
    rows = [
        (
            c.key,
            c.kind,
            c.n,
            _ci(c.metrics, c.intervals, "accuracy"),
            _ci(c.metrics, c.intervals, "kappa"),
        )
        for c in ([m.pooled] if m.pooled is not None else []) + list(m.criteria)
    ]
    item_rows = [
        (_NAMES.get(k, k), _ci(m.items.metrics, m.items.intervals, k)) for k in m.items.metrics
    ]
    return "".join(
        [
            "<section id='humans'><h2>Against human labels</h2>",
            f"<p class='muted'>{esc('; '.join(notes))}.</p>",
            table(
                ["criterion", "kind", "pairs", "accuracy [95% interval]", "kappa [95% interval]"],
                rows,
                caption="Judge against people, per criterion",
            ),
            "".join(_criterion_details(c) for c in m.criteria[:60]),
            table(
                ["metric", "value [95% interval]"],
                item_rows,
                caption=f"Item scores: judge against people ({m.items.n} items)",
            )
            if item_rows
            else "",
            _reliability(m),
            _estimates(m) if m.estimates else "",
            "</section>",
        ]
    )
