"""The report of a ``grade --pairwise`` file: one static HTML page, every value escaped.

It shows the share won by the answer shown first (position bias), how often the two
orders agreed, agreement with the human labels when the pairs had them, each
criterion's numbers, the least stable criteria with ``--repeats``, and every pair.
The page has no script: its Content-Security-Policy allows none, nor anything
from the network.
"""

from __future__ import annotations

import datetime as dt

from .._model._pairwise import CriterionPreference, PairwiseReport
from .._stats._pairwise_stats import PairwiseStats, PairwiseTally
from ._assets import CSS
from ._html import esc, fmt, table

__all__ = ["MAX_PAIRS_SHOWN", "render_pairwise_page"]

MAX_PAIRS_SHOWN = 2000
"""Pairs listed one by one; the numbers above the list count every pair."""

_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v:.1%}"


def _overview(st: PairwiseStats) -> str:
    counts = ", ".join(f"{k} {st.preferred.get(k, 0)}" for k in ("a", "b", "tie"))
    rows: list[tuple[str, str]] = [
        ("pairs", f"{st.compared} compared, {st.failed} could not be, {st.pairs} in all"),
        ("preferred", counts),
        (
            "position bias",
            f"the answer shown first won {_pct(st.first_shown_share)} of the decisive "
            "answers (0.5 = no bias)",
        ),
        (
            "position consistency",
            f"{_pct(st.consistency_rate)} of the comparisons gave the same answer in both "
            f"orders; {_pct(st.pairs_consistent)} of the pairs in every comparison",
        ),
    ]
    if st.labelled:
        rows += [
            ("human labels", f"{st.labelled} pairs"),
            ("accuracy (ties count half)", _pct(st.accuracy)),
            (
                "agreement excluding ties",
                f"{_pct(st.agreement_excluding_ties)} of {st.pairs_excluding_ties} pairs",
            ),
            ("accuracy without the swap (a shown first only)", _pct(st.accuracy_first_order)),
        ]
    return (
        "<section id='overview'><h2>Overview</h2>"
        + table(None, rows, "facts", caption="The comparisons in numbers")
        + "</section>"
    )


def _criteria(st: PairwiseStats, reports: list[PairwiseReport]) -> str:
    said = {c.key: c.requirement for r in reports for c in r.criteria}
    rows = [
        (
            c.key,
            said.get(c.key, "")[:200],
            c.compared,
            c.failed,
            _pct(c.consistency_rate),
            _pct(c.first_shown_share),
            fmt(c.flip_rate),
        )
        for c in st.criteria
    ]
    head = ["criterion", "requirement", "compared", "failed", "consistent", "first shown won"]
    head.append("flip rate")
    parts = [
        "<section id='criteria'><h2>Per criterion</h2><div class='scroll'>",
        table(head, rows, caption="Consistency and position bias per criterion"),
        "</div>",
    ]
    unstable = st.least_stable(10)
    if unstable:
        parts.append(
            table(
                ["criterion", "mean flip rate"],
                [(c.key, fmt(c.flip_rate)) for c in unstable],
                caption="Least stable criteria (flip rate over repeats, highest first)",
            )
        )
    parts.append("</section>")
    return "".join(parts)


def _orders(c: CriterionPreference) -> str:
    said = []
    for o in c.orders:
        answer = o.preferred if o.preferred is not None else "error"
        conf = f" ({o.confidence:.2f})" if o.confidence is not None else ""
        said.append(f"{o.first} first: {answer}{conf}")
    return "; ".join(said)


def _pairs(reports: list[PairwiseReport]) -> str:
    rows = []
    for r in reports[:MAX_PAIRS_SHOWN]:
        crit = " | ".join(f"{c.key}: {c.preferred or 'error'} [{_orders(c)}]" for c in r.criteria)
        rows.append(
            (
                r.id or "–",
                r.label or "–",
                r.preferred or "–",
                fmt(r.score),
                "–" if r.position_consistent is None else str(r.position_consistent).lower(),
                crit,
                r.error or "",
            )
        )
    more = (
        f"<p class='muted'>The first {MAX_PAIRS_SHOWN} of {len(reports)} pairs.</p>"
        if len(reports) > MAX_PAIRS_SHOWN
        else ""
    )
    head = ["id", "label", "preferred", "score", "consistent", "per criterion", "error"]
    return (
        "<section id='pairs'><h2>Pairs</h2><p class='muted'>Each criterion: the preference "
        "that counts, then what each order said (with the judge's confidence).</p>"
        f"{more}<div class='scroll'>{table(head, rows)}</div></section>"
    )


def render_pairwise_page(source: str, reports: list[PairwiseReport]) -> str:
    """The whole page as HTML text."""
    st = PairwiseTally().add_all(reports).stats()
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    nav = "<a href='#overview'>Overview</a> <a href='#criteria'>Per criterion</a> "
    nav += "<a href='#pairs'>Pairs</a>"
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{_CSP}\">"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>rubricjudge pairwise report: {esc(source)}</title><style>{CSS}</style></head>"
        f"<body><header><h1>rubricjudge pairwise report</h1><p class='muted'>{esc(source)} · "
        f"written {esc(when)}</p><nav>{nav}</nav></header><main>"
        + _overview(st)
        + _criteria(st, reports)
        + _pairs(reports)
        + "</main></body></html>"
    )
