"""The report page: one self-contained HTML file (no network, no CDN).

Static sections are rendered with every piece of user text escaped; the item
table and the item view are drawn by the inlined script from data embedded as
JSON. A Content-Security-Policy allows only that one script (by its hash), inline
styles and nothing from the network, so even text that slipped past escaping
could neither run nor fetch anything.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
from typing import Any

from ._assets import CSS, JS
from ._compare import compare, compare_section
from ._data import RunData
from ._html import esc, visible_controls
from ._human import human_section
from ._items import item_rows
from ._sections import criteria_section, overview_section
from ._stability import stability_section

__all__ = ["render_page"]


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _json_for_script(data: Any) -> str:
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:  # a NaN somewhere: JSON.parse would refuse it, so it becomes null
        text = json.dumps(_finite(data), ensure_ascii=False, separators=(",", ":"))
    # "<" and ">" never reach the page raw: no "</script>" or "<!--" can end the data block;
    # a right-to-left override is shown as a mark, not obeyed (it would reverse the text)
    text = visible_controls(text)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _csp() -> str:
    digest = base64.b64encode(hashlib.sha256(JS.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )


def _items_html(compare_on: bool, labels: bool, ensemble: bool) -> str:
    cols = [("id", "id"), ("score", "score")]
    if compare_on:
        cols.append(("delta", "Δ score"))
    cols += [("passed", "passed"), ("errors", "errors")]
    if labels:
        cols.append(("people", "disagrees with people"))
    if ensemble:
        cols.append(("split", "judges split"))
    cols += [("minconf", "lowest confidence"), ("", "item error")]
    head = "".join(
        f"<th scope='col' data-key='{k}'>{esc(t)}</th>" if k else f"<th scope='col'>{esc(t)}</th>"
        for k, t in cols
    )
    delta_opt = "<option value='delta'>largest score change first</option>" if compare_on else ""
    return (
        "<section id='item-list'><h2>Items</h2>"
        "<p class='muted'>Click an item to see its submission and every criterion's answer, "
        "reason, evidence, confidence, votes and raw judge output. Click a column to sort.</p>"
        "<div id='controls'>"
        "<label>Search <input id='filter' type='search' placeholder='id, text or error'></label>"
        "<label>Passed <select id='f-passed'><option value=''>any</option>"
        "<option value='yes'>yes</option><option value='no'>no</option>"
        "<option value='unknown'>unknown</option></select></label>"
        "<label>Errors <select id='f-errors'><option value=''>any</option>"
        "<option value='with'>with errors</option><option value='without'>without</option>"
        "</select></label>"
        "<label>Score from <input id='f-min' type='number' min='0' max='1' step='0.05'></label>"
        "<label>to <input id='f-max' type='number' min='0' max='1' step='0.05'></label>"
        "<label>Order <select id='sort'><option value='worst'>worst score first</option>"
        "<option value='disagree'>most disagreement first</option>"
        f"<option value='errors'>most errors first</option>{delta_opt}"
        "<option value='id'>id</option></select></label>"
        "<span id='count' class='muted' aria-live='polite'></span></div>"
        "<div id='detail' hidden></div>"
        f"<div class='scroll'><table id='items'><thead><tr>{head}</tr></thead><tbody></tbody>"
        "</table></div><button id='more' type='button' hidden>Show more</button></section>"
    )


def render_page(run: RunData, other: RunData | None = None) -> str:
    """The whole report as HTML text."""
    items = item_rows(run)
    comparison = compare(run, other) if other is not None else None
    if comparison is not None:
        for it in items:
            if it["id"] in comparison.deltas:
                it["delta"] = comparison.deltas[it["id"]]
    labels = run.metrics is not None
    ensemble = any("votes" in c for it in items for c in it["crit"])
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    sections = [
        ("overview", "Overview", overview_section(run)),
        ("criteria", "Per criterion", criteria_section(run)),
        ("stability", "Least stable", stability_section(run)),
        ("humans", "Against human labels", human_section(run)),
        ("compare", "Comparison", compare_section(comparison) if comparison else ""),
        ("item-list", "Items", _items_html(comparison is not None, labels, ensemble)),
    ]
    nav = " ".join(f"<a href='#{k}'>{esc(t)}</a>" for k, t, html in sections if html)
    payload = {
        "items": items,
        "compare": comparison is not None,
        "labels": labels,
        "ensemble": ensemble,
    }
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{_csp()}\">"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>rubricjudge report: {esc(run.source)}</title><style>{CSS}</style></head><body>"
        f"<header><h1>rubricjudge report</h1><p class='muted'>{esc(run.source)} · written "
        f"{esc(when)}</p><nav>{nav}</nav></header><main>"
        + "".join(html for _, _, html in sections)
        + "</main>"
        + f"<script type='application/json' id='items-data'>{_json_for_script(payload)}</script>"
        + f"<script>{JS}</script></body></html>"
    )
