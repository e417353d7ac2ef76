"""The report's plots: matplotlib figures rendered to inline SVG.

Text stays text (``svg.fonttype = none``), every plot has a ``<title>`` and its
numbers are also in the page's tables, so nothing is only in a picture. Figures
are made without pyplot and under ``rc_context``, so drawing a report changes no
backend or style of a program that calls it. Labels are drawn with
``parse_math=False``: a criterion named ``$5 $10`` is text, not mathtext.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from typing import Any

from ._html import esc

__all__ = ["answer_bars", "histogram", "reliability"]

_ID = re.compile(r'id="([^"]+)"')
_STYLE: Any = {  # matplotlib types rc keys as a Literal; these are all valid
    "svg.fonttype": "none",
    "svg.hashsalt": "rubricjudge",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
BLUE = "#4c72b0"
_FIXED = {
    "MET": "#55a868",
    "UNMET": "#c44e52",
    "CANNOT_ASSESS": "#b0b4bc",
    "error": "#2d2d2d",
    "–": "#e3e5ea",
}


def _svg(
    title: str,
    key: str,
    size: tuple[float, float],
    draw: Callable[[Any], None],
    desc: str = "",
) -> str:
    """Draw with ``draw(axes)`` and return an ``<svg>`` element titled ``title``.

    ``desc`` puts the plotted numbers in words for screen readers.
    """
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_STYLE):
        fig = Figure(figsize=size, dpi=100)
        ax = fig.add_subplot()
        draw(ax)
        ax.set_title(title, parse_math=False)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    svg = text[text.index("<svg") :]
    # ids must stay unique when several figures share one page
    svg = _ID.sub(lambda m: f'id="{key}-{m.group(1)}"', svg)
    svg = svg.replace('xlink:href="#', f'xlink:href="#{key}-').replace("url(#", f"url(#{key}-")
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{esc(title)}" class="plot" ', 1)
    head_end = svg.index(">") + 1
    text_alt = f"<title>{esc(title)}</title>" + (f"<desc>{esc(desc)}</desc>" if desc else "")
    return svg[:head_end] + text_alt + svg[head_end:]


def histogram(
    values: Sequence[float],
    *,
    title: str,
    key: str,
    xlabel: str,
    bins: int = 20,
    low: float = 0.0,
    high: float = 1.0,
    threshold: float | None = None,
) -> str:
    """A histogram of ``values`` over [low, high], with an optional threshold line."""

    def draw(ax: Any) -> None:
        ax.hist(list(values), bins=bins, range=(low, high), color=BLUE, edgecolor="white")
        if threshold is not None:
            ax.axvline(threshold, color="#c44e52", linestyle="--", linewidth=1)
            ax.text(threshold, ax.get_ylim()[1] * 0.95, " pass", color="#c44e52", va="top")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("count")

    import numpy as np

    counts, edges = np.histogram(list(values), bins=bins, range=(low, high))
    desc = f"{len(values)} values; " + "; ".join(
        f"{edges[i]:.2f} to {edges[i + 1]:.2f}: {int(n)}" for i, n in enumerate(counts) if n
    )
    return _svg(title, key, (4.6, 2.4), draw, desc)


def reliability(bins: Sequence[dict[str, float]], *, title: str, key: str) -> str:
    """Observed agreement against confidence per bin, with the diagonal of a perfect judge."""

    def draw(ax: Any) -> None:
        ax.plot([0, 1], [0, 1], color="#999999", linestyle=":", linewidth=1)
        xs = [b["confidence"] for b in bins]
        ys = [b["agreement"] for b in bins]
        sizes = [20 + 4 * b["n"] ** 0.5 for b in bins]
        ax.scatter(xs, ys, s=sizes, color=BLUE, zorder=3)
        ax.plot(xs, ys, color=BLUE, linewidth=1)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel("confidence")
        ax.set_ylabel("agreement with people")

    desc = "; ".join(
        f"confidence {b['confidence']:.2f}: agreement {b['agreement']:.2f} ({int(b['n'])})"
        for b in bins
    )
    return _svg(title, key, (3.4, 3.0), draw, desc)


def _colour(answer: str, options: Sequence[str]) -> str:
    if answer in _FIXED or answer not in options:
        return _FIXED.get(answer, "#8c8c8c")
    from matplotlib import colormaps

    # an option's place on its own scale, from the low end to the high end
    place = options.index(answer) / max(1, len(options) - 1)
    return _hex(colormaps["viridis"](0.15 + 0.7 * place))


def _plain(text: str) -> str:
    # tick and legend labels are re-made at draw time, so escape "$" instead of parse_math
    return text.replace("$", r"\$")


def _hex(rgba: Sequence[float]) -> str:
    return "#" + "".join(f"{round(c * 255):02x}" for c in rgba[:3])


def answer_bars(
    rows: Sequence[tuple[str, Sequence[tuple[str, int]], Sequence[str]]], *, title: str, key: str
) -> str:
    """One horizontal bar per criterion, split into the shares of each answer.

    ``rows`` holds (criterion, [(answer, count), ...], the criterion's option labels
    in scale order) with the answers in the order to stack them.
    """

    def draw(ax: Any) -> None:
        seen: set[str] = set()
        for y, (_, answers, options) in enumerate(rows):
            total = sum(n for _, n in answers) or 1
            left = 0.0
            for answer, n in answers:
                share = n / total
                label = None if answer in seen else _plain(answer)
                seen.add(answer)
                ax.barh(y, share, left=left, color=_colour(answer, options), label=label)
                left += share
        ax.set_yticks(range(len(rows)), [_plain(r[0][:32]) for r in rows])
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of items")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)

    desc = "; ".join(
        f"{name}: " + ", ".join(f"{a} {n}" for a, n in answers) for name, answers, _ in rows
    )
    return _svg(title, key, (6.4, 0.9 + 0.32 * len(rows)), draw, desc)
