"""What ``compute_metrics`` returns: per-criterion, item-level and inter-judge agreement."""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ._ppi import MeanEstimate

__all__ = [
    "ConfidenceSummary",
    "CriterionMetrics",
    "ItemMetrics",
    "JudgeAgreement",
    "LabellerAgreement",
    "MetricsReport",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")


class CriterionMetrics(_Model):
    """Agreement of the judge with the ground truth on one criterion.

    ``metrics`` maps a metric name to its value (NaN when undefined, see
    ``rubricjudge._metrics._classification``); ``intervals`` maps it to the
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


class LabellerAgreement(_Model):
    """People against people on the answers two or more of them labelled, and the judge.

    ``agreement`` and ``kappa`` (Cohen's) are over every pair of labellers, averaged
    weighted by the answers each pair shares; ``krippendorff_alpha`` is over all of
    them at once (nominal). ``judge_agreement`` and ``judge_kappa`` compare the
    judge with each of those labellers on the same answers, averaged the same way:
    the judge beside the human ceiling. NaN where undefined.
    """

    key: str
    labellers: list[str]
    units: int
    agreement: float
    kappa: float
    krippendorff_alpha: float
    judge_agreement: float
    judge_kappa: float


class ConfidenceSummary(_Model):
    """How well the judge's ``confidence`` matches how often it agrees with the humans.

    ``bins`` are the reliability diagram's rows: confidence range, answers in it,
    their mean confidence and the share that agree with the human label.
    """

    n: int
    mean_confidence: float
    agreement: float
    brier: float
    ece: float
    bins: list[dict[str, float]] = Field(default_factory=list)


class MetricsReport(_Model):
    """Agreement of a run's judgments with the dataset's ground truth.

    ``items_judged`` counts the items with a result; a criterion's ``n_missing``
    counts, among those, the pairs without a verdict on one side. ``pooled`` is
    the agreement over every binary criterion's pairs at once. ``verdicts`` says
    which verdicts were compared: ``final`` (what counted) or ``raw`` (the judge's
    own, before a calibration changed them). ``excluded_items`` were left out (a
    calibration's training items, say). ``estimates`` holds the naive, human-only
    and prediction-powered estimates of the mean score and pass rate. ``labellers``
    compares people who labelled the same answers with each other and with the judge
    (from the labels ``rubricjudge label`` records in items' metadata).
    """

    na_mode: str
    bootstrap: int
    confidence: float
    items_total: int
    items_judged: int
    criteria: list[CriterionMetrics]
    items: ItemMetrics
    inter_judge: list[JudgeAgreement] = Field(default_factory=list)
    pooled: CriterionMetrics | None = None
    verdicts: str = "final"
    excluded_items: int = 0
    calibrated_answers: int = 0
    confidence_calibration: ConfidenceSummary | None = None
    estimates: dict[str, dict[str, MeanEstimate]] = Field(default_factory=dict)
    labellers: list[LabellerAgreement] = Field(default_factory=list)

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
        if self.excluded_items:
            lines[0] += f"   ({self.excluded_items} excluded)"
        if self.verdicts == "raw":
            lines[0] += "   verdicts: the judge's own, before calibration"
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
        if self.pooled is not None:
            lines.append("")
            lines.append(f"{self.pooled.key} (n={self.pooled.n}):")
            lines.append("  " + _row(self.pooled.metrics, self.pooled.intervals))
        if self.confidence_calibration is not None:
            cc = self.confidence_calibration
            lines.append("")
            lines.append(
                f"confidence (n={cc.n}): mean {_fmt(cc.mean_confidence)} against agreement "
                f"{_fmt(cc.agreement)}; Brier {_fmt(cc.brier)}, ECE {_fmt(cc.ece)}"
            )
        for name, ests in self.estimates.items():
            lines.append("")
            lines.append(f"{name.replace('_', ' ')}:")
            for kind, e in ests.items():
                lines.append(
                    f"  {kind:6} {_fmt(e.estimate)} [{_fmt(e.low)}, {_fmt(e.high)}]"
                    f"  ({e.n_labelled} labelled, {e.n_unlabelled} unlabelled; {e.method})"
                )
        if self.labellers:
            lines.append("")
            lines.append("people against each other (the ceiling), and the judge against them:")
            for a in self.labellers:
                lines.append(
                    f"  {a.key} ({', '.join(a.labellers)}; {a.units} answers): people "
                    f"agreement={_fmt(a.agreement)} kappa={_fmt(a.kappa)} "
                    f"alpha={_fmt(a.krippendorff_alpha)}   judge agreement="
                    f"{_fmt(a.judge_agreement)} kappa={_fmt(a.judge_kappa)}"
                )
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
