"""Two runs side by side: score deltas per item and per criterion, verdicts that changed."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from . import _plots
from ._data import RunData, leaves
from ._sections import _answer, _fmt, _table, esc

__all__ = ["compare_section"]


def compare_section(run: RunData, other: RunData) -> str:
    """Items matched by id; deltas are this run minus the other."""
    theirs = dict(zip(other.ids, other.reports, strict=False))
    deltas: list[float] = []
    changed_rows: list[tuple[Any, ...]] = []
    per_key: dict[str, dict[str, int]] = defaultdict(lambda: {"same": 0, "changed": 0})
    matched = 0
    for item_id, mine in zip(run.ids, run.reports, strict=False):
        other_report = theirs.get(item_id)
        if mine is None or other_report is None:
            continue
        matched += 1
        if mine.score is not None and other_report.score is not None:
            deltas.append(mine.score - other_report.score)
        for a, b in zip(leaves(mine), leaves(other_report), strict=False):
            key = a.criterion.key or a.criterion.requirement[:40]
            if _answer(a) == _answer(b):
                per_key[key]["same"] += 1
            else:
                per_key[key]["changed"] += 1
                if len(changed_rows) < 300:
                    changed_rows.append(
                        (
                            item_id,
                            key,
                            _answer(b),
                            _answer(a),
                            _fmt(other_report.score),
                            _fmt(mine.score),
                        )
                    )
    head = (
        f"<section id='compare'><h2>Compared with {esc(other.source)}</h2>"
        f"<p>{matched} items in both runs (matched by id); deltas are this run minus the other.</p>"
    )
    if not matched:
        return head + "<p>No item id is in both runs.</p></section>"
    mean = sum(deltas) / len(deltas) if deltas else None
    key_rows = [
        (
            k,
            v["changed"],
            v["same"] + v["changed"],
            f"{v['changed'] / (v['same'] + v['changed']):.1%}",
        )
        for k, v in per_key.items()
    ]
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
    return (
        head
        + f"<p>Mean score change: {_fmt(mean)}</p>"
        + plot
        + _table(["criterion", "answers changed", "items", "share"], key_rows)
        + f"<details><summary>Verdicts that changed ({len(changed_rows)} shown)</summary>"
        + _table(["item", "criterion", "there", "here", "score there", "score here"], changed_rows)
        + "</details></section>"
    )
