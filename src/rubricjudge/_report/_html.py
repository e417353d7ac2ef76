"""Small HTML helpers shared by the report's sections; every value passes through ``esc``."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

__all__ = ["answer_of", "esc", "fmt", "table"]


def esc(value: Any) -> str:
    """HTML-escaped text of ``value`` (quotes included, so it is safe in attributes too)."""
    return html.escape(str(value), quote=True)


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
