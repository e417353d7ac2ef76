"""Small HTML helpers shared by the report's sections; every value passes through ``esc``."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["answer_of", "esc", "fmt", "table", "visible_controls"]

# embeddings, overrides and isolates (LRE RLE PDF LRO RLO, LRI RLI FSI PDI)
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def visible_controls(text: str) -> str:
    """``text`` with each bidirectional control written as its code point (``⟨U+202E⟩``).

    Drawn, a right-to-left override reverses the text after it: a reader would see
    ``cba`` where the submission says ``abc``. Shown as a mark, nothing is reversed
    and the reader sees that the control is there.
    """
    return _BIDI.sub(lambda m: f"⟨U+{ord(m.group()):04X}⟩", text)


def esc(value: Any) -> str:
    """HTML-escaped text of ``value`` (quotes included, so it is safe in attributes too).

    Bidirectional controls are shown as marks (:func:`visible_controls`).
    """
    return html.escape(visible_controls(str(value)), quote=True)


def fmt(v: float | None, digits: int = 3) -> str:
    """A number with ``digits`` decimals, or an en dash when there is none."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.{digits}f}"


def table(
    head: Sequence[str] | None,
    rows: Sequence[Sequence[Any]],
    cls: str = "",
    *,
    caption: str | None = None,
) -> str:
    """A table of escaped cells; the first cell of each row is a row header."""
    body = "".join(
        "<tr>"
        + "".join(
            (
                f"<th scope='row'>{esc(c)}</th>"
                if i == 0 and head is not None
                else f"<td>{esc(c)}</td>"
            )
            for i, c in enumerate(r)
        )
        + "</tr>"
        for r in rows
    )
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    if head is None:
        return f"<table class='{cls}'>{cap}<tbody>{body}</tbody></table>"
    th = "".join(f"<th scope='col'>{esc(h)}</th>" for h in head)
    return f"<table class='{cls}'>{cap}<thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def answer_of(cr: Any) -> str:
    """What the judge answered on one criterion: a verdict, an option label or ``error``.

    A failed judgment is ``error`` whatever verdict the failure policy filled in: a
    failure is never shown as a verdict.
    """
    if cr.error is not None:
        return "error"
    if cr.selection is not None:
        return str(cr.selection.label)
    if cr.scale_score is not None:
        return f"{cr.scale_score.score:g}"
    return cr.verdict.value if cr.verdict is not None else "–"
