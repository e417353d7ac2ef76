"""What ``compute_metrics`` returns: per-criterion, item-level and inter-judge agreement."""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CriterionMetrics", "ItemMetrics", "JudgeAgreement", "MetricsReport"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")


class CriterionMetrics(_Model):
    """Agreement of the judge with the ground truth on one criterion.

    ``metrics`` maps a metric name to its value (NaN when undefined, see
    ``rubricate._metrics._classification``); ``intervals`` maps it to the
    bootstrap confidence interval when one was asked for. ``confusion`` has rows
    for the ground truth and columns for the judge, in ``labels`` order.
    """

    key: str
    kind: str
    labels: list[str]
    n: int
    n_na_truth: int = 0
    n_na_judge: int = 0
    n_judge_errors: int = 0
    n_missing: int = 0
    metrics: dict[str, float] = Field(default_factory=dict)
    intervals: dict[str, tuple[float, float]] = Field(default_factory=dict)
    confusion: list[list[int]] = Field(default_factory=list)
    per_label: dict[str, dict[str, float]] = Field(default_factory=dict)


class ItemMetrics(_Model):
    """Agreement of the judge's item scores with the scores of the ground truth."""

    n: int
    metrics: dict[str, float] = Field(default_factory=dict)
    intervals: dict[str, tuple[float, float]] = Field(default_factory=dict)


class JudgeAgreement(_Model):
    """How much the judges of an ensemble agree with each other on one criterion."""

    key: str
    judges: list[str]
    units: int
    krippendorff_alpha: float
    fleiss_kappa: float | None = None


class MetricsReport(_Model):
    """Agreement of a run's judgments with the dataset's ground truth.

    ``items_judged`` counts the items with a result; a criterion's ``n_missing``
    counts, among those, the pairs without a verdict on one side.
    """

    na_mode: str
    bootstrap: int
    confidence: float
    items_total: int
    items_judged: int
    criteria: list[CriterionMetrics]
    items: ItemMetrics
    inter_judge: list[JudgeAgreement] = Field(default_factory=list)

    def criterion(self, key: str) -> CriterionMetrics:
        """Return the metrics of the criterion named ``key``."""
        for c in self.criteria:
            if c.key == key:
                return c
        valid = ", ".join(repr(c.key) for c in self.criteria)
        raise KeyError(f"no criterion {key!r}; valid keys are {valid}")

    def to_jsonable(self) -> dict[str, Any]:
        """Return a JSON-ready dict; undefined values (NaN) become null."""
        loaded: dict[str, Any] = json.loads(self.model_dump_json())
        return loaded

    def to_text(self) -> str:
        """Render the main numbers as plain text."""
        lines = [
            f"items: {self.items_judged} judged of {self.items_total}   N/A mode: {self.na_mode}"
        ]
        if self.bootstrap:
            pct = round(self.confidence * 100)
            lines[0] += f"   {pct}% CI from {self.bootstrap} bootstrap resamples"
        lines.append("")
        lines.append(f"item scores (n={self.items.n}):")
        lines.append("  " + _row(self.items.metrics, self.items.intervals))
        for c in self.criteria:
            extra = []
            if c.n_judge_errors:
                extra.append(f"{c.n_judge_errors} judge errors")
            if c.n_missing:
                extra.append(f"{c.n_missing} missing")
            tail = f"; {', '.join(extra)}" if extra else ""
            lines.append("")
            lines.append(f"{c.key} [{c.kind}] (n={c.n}{tail}):")
            lines.append("  " + _row(c.metrics, c.intervals))
        for j in self.inter_judge:
            fk = "" if j.fleiss_kappa is None else f"  fleiss_kappa={_fmt(j.fleiss_kappa)}"
            lines.append(
                f"judges on {j.key}: alpha={_fmt(j.krippendorff_alpha)}{fk} ({j.units} items)"
            )
        return "\n".join(lines)


def _fmt(v: float | None) -> str:
    if v is None or math.isnan(v):
        return "n/a"
    return f"{v:.3f}"


def _row(metrics: dict[str, float], intervals: dict[str, tuple[float, float]]) -> str:
    parts = []
    for name, v in metrics.items():
        ci = intervals.get(name)
        cis = f" [{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else ""
        parts.append(f"{name}={_fmt(v)}{cis}")
    return "  ".join(parts)
