"""The "least stable criteria" section: flip rates when judgments were repeated."""

from __future__ import annotations

from .._stats._flips import FlipTally
from ._data import RunData
from ._html import esc, table

__all__ = ["stability_section"]


def stability_section(run: RunData) -> str:
    """The criteria whose repeated answers flipped most (empty without ``--repeats``)."""
    flips = FlipTally()
    for r in run.reports:
        flips.add(r)
    worst = flips.least_stable(10)
    if not worst:
        return ""
    rows = [(key, f"{rate:.3f}", count) for key, rate, count in worst]
    note = (
        "Each judgment was asked several times (--repeats); a criterion's flip rate is the "
        "share of its repeated answers that differ from the most common one, averaged over "
        "the items. 0 means every repeat agreed."
    )
    return (
        "<section id='stability'><h2>Least stable criteria</h2>"
        f"<p class='muted'>{esc(note)}</p>"
        + table(["criterion", "mean flip rate", "items"], rows, caption="Highest flip rate first")
        + "</section>"
    )
