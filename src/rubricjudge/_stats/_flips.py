"""Which criteria flip most when judgments are repeated, summed over a run's reports.

The ``grade`` summary, the ``evaluate`` run summary, ``metrics`` and the HTML
report all list the least stable criteria from a :class:`FlipTally`.
"""

from __future__ import annotations

from .._model._reports import EvaluationReport
from .._model._scoring import leaf_reports

__all__ = ["FlipTally"]


class FlipTally:
    """Mean flip rate per criterion key (criteria without repeats are not counted)."""

    def __init__(self) -> None:
        self.sums: dict[str, float] = {}
        self.counts: dict[str, int] = {}

    def add(self, report: EvaluationReport | None) -> None:
        """Count the flip rates of one report's criteria."""
        if report is None:
            return
        for pos, leaf in enumerate(leaf_reports(report.report or [])):
            st = leaf.stability
            if st is None or st.flip_rate is None:
                continue
            key = leaf.key or f"#{pos}"
            self.sums[key] = self.sums.get(key, 0.0) + st.flip_rate
            self.counts[key] = self.counts.get(key, 0) + 1

    def rates(self) -> dict[str, float]:
        """Each measured criterion's mean flip rate, in the order first seen."""
        return {k: self.sums[k] / n for k, n in self.counts.items()}

    def least_stable(self, n: int = 5) -> list[tuple[str, float, int]]:
        """The ``n`` criteria with the highest mean flip rate: (key, rate, items measured)."""
        rates = self.rates()
        ranked = sorted(rates, key=lambda k: -rates[k])[:n]
        return [(k, rates[k], self.counts[k]) for k in ranked]

    def lines(self, n: int = 5) -> list[str]:
        """Readable lines listing the least stable criteria (none when nothing was repeated)."""
        worst = self.least_stable(n)
        if not worst:
            return []
        out = ["least stable criteria (mean flip rate over repeats):"]
        out += [f"  {key}: {rate:.3f} over {count} items" for key, rate, count in worst]
        return out
