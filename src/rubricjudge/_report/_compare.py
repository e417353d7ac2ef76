"""Two runs side by side: score deltas per item and per criterion, verdicts that changed.

Items are matched by id, criteria by key (by position when a criterion has none).
Deltas are always *this* run minus the *other* one.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from . import _plots
from ._data import RunData, leaves
from ._html import answer_of, esc, fmt, table

__all__ = ["Comparison", "compare"]

_SHOWN = 300


@dataclass
class Comparison:
    """What the comparison found, for its section and for the item table."""

    other: str
    matched: int = 0
    only_here: int = 0
    only_there: int = 0
    deltas: dict[str, float] = field(default_factory=dict)
    changed: list[tuple[Any, ...]] = field(default_factory=list)
    changed_total: int = 0
    per_key: dict[str, dict[str, Any]] = field(default_factory=dict)
    changed_items: dict[str, int] = field(default_factory=dict)


def _credit(cr: Any) -> float | None:
    return None if cr.error is not None else cr.score_value


def _keyed(report: Any) -> dict[str, Any]:
    return {cr.criterion.key or f"#{j}": cr for j, cr in enumerate(leaves(report))}


def _pairs(here: Any, there: Any) -> list[tuple[str, tuple[Any, Any]]]:
    """The criteria both reports judged, matched by key (a changed rubric pairs nothing wrong)."""
    theirs = _keyed(there)
    return [(k, (a, theirs[k])) for k, a in _keyed(here).items() if k in theirs]


def compare(run: RunData, other: RunData) -> Comparison:
    """Match the items of ``run`` and ``other`` and measure what changed."""
    theirs = {i: r for i, r in zip(other.ids, other.reports, strict=False) if r is not None}
    mine = {i: r for i, r in zip(run.ids, run.reports, strict=False) if r is not None}
    out = Comparison(other=other.source)
    out.only_here = sum(1 for i in mine if i not in theirs)
    out.only_there = sum(1 for i in theirs if i not in mine)
    per_key: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"same": 0, "changed": 0, "here": [], "there": []}
    )
    for item_id, here in mine.items():
        there = theirs.get(item_id)
        if there is None:
            continue
        out.matched += 1
        if here.score is not None and there.score is not None:
            out.deltas[item_id] = here.score - there.score
        for key, (a, b) in _pairs(here, there):
            g = per_key[key]
            ca, cb = _credit(a), _credit(b)
            if ca is not None and cb is not None:
                g["here"].append(ca)
                g["there"].append(cb)
            if answer_of(a) == answer_of(b):
                g["same"] += 1
                continue
            g["changed"] += 1
            out.changed_total += 1
            out.changed_items[item_id] = out.changed_items.get(item_id, 0) + 1
            if len(out.changed) < _SHOWN:
                out.changed.append((item_id, key, answer_of(b), answer_of(a)))
    out.per_key = dict(per_key)
    return out


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def compare_section(c: Comparison) -> str:
    """The comparison as an HTML section."""
    head = (
        f"<section id='compare'><h2>Compared with {esc(c.other)}</h2>"
        f"<p>{c.matched} items in both runs (matched by id), {c.only_here} only in this run, "
        f"{c.only_there} only in the other. Deltas are this run minus the other; the item "
        "table below has a Δ score column to sort by.</p>"
    )
    if not c.matched:
        return head + "<p>No item id is in both runs.</p></section>"
    deltas = list(c.deltas.values())
    moved = sorted(c.deltas.items(), key=lambda kv: -abs(kv[1]))
    key_rows = []
    for key, g in c.per_key.items():
        total = g["same"] + g["changed"]
        here, there = _mean(g["here"]), _mean(g["there"])
        key_rows.append(
            (
                key,
                fmt(there),
                fmt(here),
                fmt(None if here is None or there is None else here - there),
                g["changed"],
                total,
                f"{g['changed'] / total:.1%}" if total else "–",
            )
        )
    plot = (
        _plots.histogram(
            deltas,
            title="Score change per item",
            key="deltas",
            xlabel="score here minus there",
            low=-1.0,
            high=1.0,
        )
        if deltas
        else ""
    )
    summary = (
        f"<p>Mean score change {fmt(_mean(deltas))} over {len(deltas)} items; "
        f"{sum(d > 0 for d in deltas)} went up, {sum(d < 0 for d in deltas)} down. "
        f"{c.changed_total} answers changed on {len(c.changed_items)} items.</p>"
    )
    return (
        head
        + summary
        + "<div class='grid'>"
        + plot
        + table(
            ["criterion", "mean credit there", "here", "Δ", "answers changed", "items", "share"],
            key_rows,
            caption="Per criterion",
        )
        + "</div>"
        + f"<details><summary>Largest score changes ({min(len(moved), 50)} shown)</summary>"
        + table(["item", "Δ score"], [(i, f"{d:+.3f}") for i, d in moved[:50]])
        + "</details>"
        + f"<details><summary>Answers that changed ({len(c.changed)} of {c.changed_total} "
        "shown)</summary>"
        + table(["item", "criterion", "there", "here"], c.changed)
        + "</details></section>"
    )
