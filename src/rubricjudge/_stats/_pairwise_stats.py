"""The numbers of a run of comparisons: position bias, consistency, agreement with people.

:class:`PairwiseTally` takes :class:`PairwiseReport` objects one at a time (the
``grade --pairwise`` summary, ``metrics`` and the report all use it) and keeps a
few counters per criterion, so a large run costs little memory.

* **first-shown share** (position bias): of the decisive answers (not ties, not
  failures) over both orders of every comparison, the share that named the answer
  shown first. 0.5 means no position bias; a judge that always names the first
  scores 1.0.
* **consistency rate**: of the comparisons answered in both orders, the share whose
  two orders gave the same preference.
* **accuracy** against human labels (``label``: ``a``, ``b`` or ``tie``): 1 for the
  same preference, 0.5 when exactly one of the two is a tie, 0 for the opposite
  submission. **Agreement excluding ties** counts only the pairs where neither the
  label nor the preference is a tie. **Accuracy without the swap** is the accuracy
  the first order alone (``a`` shown first) would have had.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from .._model._pairwise import CriterionPreference, PairwiseReport, Preference

__all__ = ["CriterionStats", "PairwiseStats", "PairwiseTally", "credit", "first_order_preference"]

_VALUE = {"a": 1.0, "b": -1.0, "tie": 0.0}


def credit(predicted: Preference, label: Preference) -> float:
    """1 for the same preference, 0.5 when exactly one is a tie, 0 for the opposite."""
    if predicted == label:
        return 1.0
    return 0.5 if "tie" in (predicted, label) else 0.0


def _sign(score: float) -> Preference:
    return "a" if score > 0 else "b" if score < 0 else "tie"


def first_order_preference(criteria: Sequence[CriterionPreference]) -> Preference | None:
    """The preference the first order alone (``a`` shown first) gives, weighted as the score."""
    total = value = 0.0
    for c in criteria:
        first = c.orders[0].preferred if c.orders else None
        if first is None:
            continue
        w = abs(c.weight) or 1.0
        total += w
        value += w * _VALUE[first]
    return _sign(value) if total > 0 else None


class CriterionStats(BaseModel):
    """Per criterion: comparisons, consistency, first-shown share and flip rate."""

    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")

    key: str
    compared: int = 0
    consistent: int = 0
    failed: int = 0
    decisive: int = 0
    named_first: int = 0
    consistency_rate: float | None = None
    first_shown_share: float | None = None
    flip_rate: float | None = None


class PairwiseStats(BaseModel):
    """What a run of comparisons shows; rates are None when nothing counted toward them."""

    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")

    pairs: int = 0
    compared: int = 0
    failed: int = 0
    preferred: dict[str, int] = Field(default_factory=dict)
    first_shown_share: float | None = None
    consistency_rate: float | None = None
    pairs_consistent: float | None = None
    labelled: int = 0
    accuracy: float | None = None
    agreement_excluding_ties: float | None = None
    pairs_excluding_ties: int = 0
    accuracy_first_order: float | None = None
    criteria: list[CriterionStats] = Field(default_factory=list)

    def least_stable(self, n: int = 5) -> list[CriterionStats]:
        """The ``n`` criteria with the highest flip rate (only those measured)."""
        rated = [c for c in self.criteria if c.flip_rate is not None]
        return sorted(rated, key=lambda c: -(c.flip_rate or 0.0))[:n]

    def to_text(self) -> str:
        """A few readable lines."""

        def pct(v: float | None) -> str:
            return "–" if v is None else f"{v:.1%}"

        counts = ", ".join(f"{k} {self.preferred.get(k, 0)}" for k in ("a", "b", "tie"))
        lines = [
            f"pairs: {self.pairs} ({self.compared} compared, {self.failed} not); "
            f"preferred: {counts}",
            f"position bias: the answer shown first won {pct(self.first_shown_share)} of the "
            "decisive answers (0.5 = none)",
            f"position consistency: {pct(self.consistency_rate)} of the comparisons gave the "
            f"same answer in both orders; {pct(self.pairs_consistent)} of the pairs throughout",
        ]
        if self.labelled:
            lines.append(
                f"against {self.labelled} human labels: accuracy {pct(self.accuracy)} (ties "
                f"count half); agreement excluding ties {pct(self.agreement_excluding_ties)} "
                f"({self.pairs_excluding_ties} pairs); without the swap (a shown first only) "
                f"{pct(self.accuracy_first_order)}"
            )
        unstable = self.least_stable()
        if unstable:
            lines.append("least stable criteria (flip rate over repeats):")
            lines += [f"  {c.key}: {c.flip_rate:.3f}" for c in unstable]
        return "\n".join(lines)


@dataclass
class _Criterion:
    compared: int = 0
    consistent: int = 0
    failed: int = 0
    decisive: int = 0
    named_first: int = 0
    flips: list[float] = field(default_factory=list)


class PairwiseTally:
    """Accumulates :class:`PairwiseStats` report by report."""

    def __init__(self) -> None:
        self.pairs = self.compared = self.failed = self.labelled = 0
        self.both = 0  # pairs whose criteria were all answered in both orders
        self.consistent_pairs = 0
        self.preferred: dict[str, int] = {}
        self.credit = self.first_credit = 0.0
        self.first_labelled = 0
        self.no_tie = self.no_tie_agree = 0
        self.by_key: dict[str, _Criterion] = {}

    def add(self, report: PairwiseReport) -> None:
        """Count one pair's report."""
        self.pairs += 1
        if report.preferred is None:
            self.failed += 1
        else:
            self.compared += 1
            self.preferred[report.preferred] = self.preferred.get(report.preferred, 0) + 1
        if report.position_consistent is not None:
            self.both += 1
            self.consistent_pairs += int(report.position_consistent)
        for c in report.criteria:
            self._criterion(c)
        label = report.label
        if label is None:
            return
        if report.preferred is not None:
            self.labelled += 1
            self.credit += credit(report.preferred, label)
            if label != "tie" and report.preferred != "tie":
                self.no_tie += 1
                self.no_tie_agree += int(report.preferred == label)
        first = first_order_preference(report.criteria)
        if first is not None:
            self.first_labelled += 1
            self.first_credit += credit(first, label)

    def add_all(self, reports: Iterable[PairwiseReport]) -> PairwiseTally:
        """Count every report; returns self."""
        for r in reports:
            self.add(r)
        return self

    def _criterion(self, c: CriterionPreference) -> None:
        st = self.by_key.setdefault(c.key, _Criterion())
        if c.preferred is None:
            st.failed += 1
        else:
            st.compared += 1
            st.consistent += int(bool(c.position_consistent))
        for o in c.orders:
            first = o.named_first
            if first is not None:
                st.decisive += 1
                st.named_first += int(first)
        if c.flip_rate is not None:
            st.flips.append(c.flip_rate)

    def stats(self) -> PairwiseStats:
        """The numbers so far."""

        def rate(num: float, den: int) -> float | None:
            return num / den if den else None

        criteria = [
            CriterionStats(
                key=k,
                compared=s.compared,
                consistent=s.consistent,
                failed=s.failed,
                decisive=s.decisive,
                named_first=s.named_first,
                consistency_rate=rate(s.consistent, s.compared),
                first_shown_share=rate(s.named_first, s.decisive),
                flip_rate=sum(s.flips) / len(s.flips) if s.flips else None,
            )
            for k, s in self.by_key.items()
        ]
        compared = sum(s.compared for s in self.by_key.values())
        decisive = sum(s.decisive for s in self.by_key.values())
        return PairwiseStats(
            pairs=self.pairs,
            compared=self.compared,
            failed=self.failed,
            preferred=dict(self.preferred),
            first_shown_share=rate(sum(s.named_first for s in self.by_key.values()), decisive),
            consistency_rate=rate(sum(s.consistent for s in self.by_key.values()), compared),
            pairs_consistent=rate(self.consistent_pairs, self.both),
            labelled=self.labelled,
            accuracy=rate(self.credit, self.labelled),
            agreement_excluding_ties=rate(self.no_tie_agree, self.no_tie),
            pairs_excluding_ties=self.no_tie,
            accuracy_first_order=rate(self.first_credit, self.first_labelled),
            criteria=criteria,
        )
