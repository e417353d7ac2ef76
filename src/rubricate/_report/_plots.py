"""The report's plots: matplotlib figures rendered to inline SVG.

Text stays text (``svg.fonttype = none``), every plot has a ``<title>`` and its
numbers are also in the page's tables, so nothing is only in a picture.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["histogram", "reliability", "svg_of"]

_ID = re.compile(r'id="([^"]+)"')


def _figure(width: float = 4.6, height: float = 2.4) -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "svg.fonttype": "none",
            "font.size": 9,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "svg.hashsalt": "rubricate",
        }
    )
    fig, ax = plt.subplots(figsize=(width, height), dpi=100)
    return plt, fig, ax


def svg_of(fig: Any, title: str, key: str) -> str:
    """The figure as an ``<svg>`` element with a title, its ids made unique by ``key``."""
    import matplotlib.pyplot as plt

    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    start = text.index("<svg")
    svg = text[start:]
    svg = _ID.sub(lambda m: f'id="{key}-{m.group(1)}"', svg)
    svg = svg.replace('xlink:href="#', f'xlink:href="#{key}-').replace("url(#", f"url(#{key}-")
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{_attr(title)}" class="plot" ', 1)
    head_end = svg.index(">") + 1
    return svg[:head_end] + f"<title>{_text(title)}</title>" + svg[head_end:]


def _attr(text: str) -> str:
    return _text(text).replace('"', "&quot;")


def _text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


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
    plt, fig, ax = _figure()
    ax.hist(list(values), bins=bins, range=(low, high), color="#4c72b0", edgecolor="white")
    if threshold is not None:
        ax.axvline(threshold, color="#c44e52", linestyle="--", linewidth=1)
        ax.text(threshold, ax.get_ylim()[1] * 0.95, " pass", color="#c44e52", va="top")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("count")
    ax.set_title(title)
    return svg_of(fig, title, key)


def reliability(bins: Sequence[dict[str, float]], *, title: str, key: str) -> str:
    """Observed agreement against confidence per bin, with the diagonal of a perfect judge."""
    plt, fig, ax = _figure(3.4, 3.0)
    ax.plot([0, 1], [0, 1], color="#999999", linestyle=":", linewidth=1)
    xs = [b["confidence"] for b in bins]
    ys = [b["agreement"] for b in bins]
    sizes = [20 + 4 * b["n"] ** 0.5 for b in bins]
    ax.scatter(xs, ys, s=sizes, color="#4c72b0", zorder=3)
    ax.plot(xs, ys, color="#4c72b0", linewidth=1)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("confidence")
    ax.set_ylabel("agreement with people")
    ax.set_title(title)
    return svg_of(fig, title, key)
