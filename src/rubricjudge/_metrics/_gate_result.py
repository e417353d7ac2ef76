"""What ``gate`` found, as data (``--json``) and as the lines a CI log shows."""

from __future__ import annotations

import json
import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ._ppi import MeanEstimate

__all__ = ["Change", "CriterionChange", "GateResult", "PairCounts"]

_STRICT = ConfigDict(extra="forbid", ser_json_inf_nan="null")


class Change(BaseModel):
    """The mean change new minus baseline over ``n`` paired items, with its interval."""

    model_config = _STRICT

    estimate: float
    low: float
    high: float
    n: int


class CriterionChange(BaseModel):
    """One criterion's mean credit in both runs over the items where both judged it."""

    model_config = _STRICT

    key: str
    n: int
    baseline: float
    new: float
    change: float
    low: float
    high: float


class PairCounts(BaseModel):
    """How the items of the two runs paired up by id.

    ``failed_*`` count items in both runs without a number on that side because
    grading failed there; ``not_applicable`` those without one only because it does
    not apply (CANNOT_ASSESS, no such criterion or threshold). ``coverage`` is
    ``paired / (paired + only_baseline + failed)``: N/A items count on neither side.
    """

    model_config = _STRICT

    baseline_items: int
    new_items: int
    paired: int
    only_baseline: int
    only_new: int
    failed_baseline: int
    failed_new: int
    failed: int
    not_applicable: int
    coverage: float


def _num(x: float | None, sign: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:+.3f}" if sign else f"{x:.3f}"


def _ci(low: float, high: float, confidence: float) -> str:
    return f"[{confidence:.0%} CI {_num(low, True)}, {_num(high, True)}]"


def _bound(max_drop: float) -> str:
    return "0" if max_drop == 0 else f"-{max_drop:g}"


class GateResult(BaseModel):
    """The change of a metric between two runs, and whether it is a significant drop.

    The run is *worse* (``verdict == "fail"``) when the upper end of the interval of
    the change lies below ``-max_drop``, or when items failed in the new run that the
    baseline graded (``new_failures`` names them and their errors): a failure of the
    new run is never a paired improvement. ``human`` is the prediction-powered estimate
    of the change in the human labels' terms, where both runs carry labels.
    """

    model_config = _STRICT

    metric: str
    baseline_source: str
    new_source: str
    verdict: Literal["pass", "fail"]
    rule: str
    max_drop: float
    confidence: float
    bootstrap: int
    seed: int | None
    baseline: float
    new: float
    change: Change
    human: MeanEstimate | None = None
    human_note: str | None = None
    criteria: list[CriterionChange]
    counts: PairCounts
    new_failures: list[str] = []

    @property
    def worse(self) -> bool:
        """True when the new run is worse beyond ``max_drop``, or failed where the base did not."""
        return self.verdict == "fail"

    def line(self) -> str:
        """The one line a CI log shows: metric, baseline, new, change with interval, verdict."""
        if self.new_failures:
            k = len(self.new_failures)
            more = f" (and {k - 1} more)" if k > 1 else ""
            return (
                f"FAIL {self.metric}: the judge failed on {k} item{'s' if k != 1 else ''} of the "
                f"new run that the baseline graded; a judge failure is never a score: "
                f"{self.new_failures[0]}{more}"
            )
        return self._change_line()

    def _change_line(self) -> str:
        c = self.change
        drop = c.high < -self.max_drop
        verdict = "FAIL" if drop else "PASS"
        head = (
            f"{self.metric}: {_num(self.baseline)} -> {_num(self.new)}, "
            f"change {_num(c.estimate, True)} {_ci(c.low, c.high, self.confidence)}, "
            f"{c.n} paired items; "
        )
        if drop:
            tail = (
                f"worse beyond max drop {self.max_drop:g} "
                f"(the interval lies below {_bound(self.max_drop)})"
            )
        else:
            tail = f"not significantly worse beyond max drop {self.max_drop:g}"
        if self.new_failures:
            return f"paired items' {head}{tail}"
        return f"{verdict} {head}{tail}"

    def lines(self, top: int = 3) -> list[str]:
        """The CI line, then the pairing, the human-label estimate and the worst criteria."""
        out = [self.line()]
        if len(self.new_failures) > 1:
            out.extend(f"  {f}" for f in self.new_failures[:20])
            if len(self.new_failures) > 20:
                out.append(f"  ... {len(self.new_failures) - 20} more")
        if self.new_failures and math.isfinite(self.change.high):
            out.append(self._change_line())  # the paired items' change, for the record
        out.append(self._pairing())
        if self.human is not None:
            h = self.human
            how = (
                f"prediction-powered change, from {h.n_labelled} items labelled in both runs "
                f"and {h.n_unlabelled} not"
                if h.n_unlabelled
                else f"change, every one of the {h.n_labelled} items labelled in both runs"
            )
            out.append(
                f"human labels: {_num(h.estimate, True)} {_ci(h.low, h.high, self.confidence)} "
                f"({how})"
            )
            if self.human_note:
                out.append(f"  ({self.human_note})")
        elif self.human_note:
            out.append(f"human labels: {self.human_note}")
        dropped = [c for c in self.criteria if c.change < 0][: max(top, 0)]
        if not self.criteria or top <= 0:
            return out
        if not dropped:
            out.append("no criterion's mean credit dropped")
            return out
        out.append(f"criteria that dropped most (mean credit, {self.confidence:.0%} CI):")
        width = max(len(c.key) for c in dropped)
        for c in dropped:
            out.append(
                f"  {c.key:<{width}}  {_num(c.baseline)} -> {_num(c.new)}  "
                f"{_num(c.change, True)} [{_num(c.low, True)}, {_num(c.high, True)}]  {c.n} items"
            )
        return out

    def _pairing(self) -> str:
        k = self.counts
        parts = [
            f"{n} {what}"
            for n, what in (
                (k.only_baseline, "only in the baseline"),
                (k.only_new, "only in the new run"),
                (k.failed_baseline, "failed in the baseline"),
                (k.failed_new, "failed in the new run"),
                (k.not_applicable, "N/A"),
            )
            if n
        ]
        tail = f": {', '.join(parts)}" if parts else ""
        return (
            f"items: {k.paired} paired by id ({k.baseline_items} in the baseline, "
            f"{k.new_items} in the new run){tail}"
        )

    def to_jsonable(self) -> dict[str, Any]:
        """A JSON-ready dict; undefined values (NaN) become null."""
        loaded: dict[str, Any] = json.loads(self.model_dump_json())
        return loaded
