"""What ``gate`` compares: one number per item of a run, for the metric asked for.

``mean_score`` is the item's score; ``pass_rate`` is 1 when the item passed its
rubric's ``pass_threshold`` (or ``--pass-threshold``) and 0 when not;
``criterion:NAME`` is the credit of that criterion (1 MET, 0 UNMET, an option's
value). An item without a number is either *failed* (no report, the grader raised,
or the judge failed on what the metric needs: never counted as a verdict) or *N/A*
(CANNOT_ASSESS, an N/A option, a rubric without that criterion or threshold). For
``mean_score`` and ``pass_rate`` the judge failed on what the metric needs when it
failed on any criterion that carries weight (``_scoring.complete_score``): a partial
score, or a score a run recorded before that rule, is not used.

The same is read from the dataset's human labels where a run directory has them,
for the prediction-powered estimate of the change.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._errors import ConfigError, VerdictError
from .._model._reports import CriterionReport, EvaluationReport
from .._model._rubric import Rubric
from .._model._scoring import complete_score, failure_reason, leaf_reports
from .._model._verdicts import parse_verdict
from ._compute import human_score
from ._tables import FloatArray

__all__ = [
    "GateMetric",
    "SideValues",
    "check_metric",
    "has_labels",
    "parse_metric",
    "side_values",
]

_KINDS = ("mean_score", "pass_rate", "criterion:NAME")


@dataclass(frozen=True)
class GateMetric:
    """A metric ``gate`` can compare: its kind and, for ``criterion``, the criterion's key."""

    kind: str
    key: str | None = None

    def __str__(self) -> str:
        return f"criterion:{self.key}" if self.kind == "criterion" else self.kind


def parse_metric(text: str) -> GateMetric:
    """``mean_score``, ``pass_rate`` or ``criterion:NAME``.

    Raises:
        ConfigError: anything else; the message lists the valid ones.
    """
    if text in ("mean_score", "pass_rate"):
        return GateMetric(text)
    kind, sep, key = text.partition(":")
    if kind == "criterion" and sep and key.strip():
        return GateMetric("criterion", key.strip())
    near = difflib.get_close_matches(text, ["mean_score", "pass_rate"], n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    raise ConfigError(f"--metric {text!r} is not one of {', '.join(_KINDS)}{hint}")


@dataclass
class SideValues:
    """One run's numbers, item by item (NaN where an item has none)."""

    ids: list[str]
    value: FloatArray
    failed: np.ndarray
    human: FloatArray
    # per failed item, what failed (None: never graded, or not failed)
    why: list[str | None] = field(default_factory=list)
    criteria: dict[str, FloatArray] = field(default_factory=dict)
    keys_seen: set[str] = field(default_factory=set)
    carries_pass: bool = False
    labelled: bool = False
    training_left_out: int = 0
    """Labelled items left out: the run's calibration was fitted on them."""


def _leaf_key(cr: CriterionReport, pos: int) -> str:
    return cr.criterion.key or f"#{pos}"


def _leaves(report: EvaluationReport) -> dict[str, CriterionReport]:
    return {_leaf_key(cr, j): cr for j, cr in enumerate(leaf_reports(report.report or []))}


def _score_failed(report: EvaluationReport) -> bool:
    return report.error is not None or report.error_count > 0


def _judged(
    report: EvaluationReport | None,
    leaves: dict[str, CriterionReport],
    metric: GateMetric,
    threshold: float | None,
) -> tuple[float | None, bool]:
    """The judged number of one item, and whether a failure is why there is none."""
    if report is None:
        return None, True
    if metric.kind == "criterion":
        cr = leaves.get(metric.key or "")
        if cr is None:
            return None, report.error is not None
        if cr.error is not None:
            return None, True
        return cr.score_value, False
    if report.score is None:
        return None, _score_failed(report)
    if complete_score(report) is None:  # the judge failed on a weighted criterion
        return None, True
    if metric.kind == "mean_score":
        return report.score, False
    if threshold is not None:
        return float(report.score >= threshold), False
    return (None if report.passed is None else float(report.passed)), False


def _why(
    run: Any,
    i: int,
    report: EvaluationReport | None,
    leaves: dict[str, CriterionReport],
    metric: GateMetric,
) -> str | None:
    """What failed on item ``i``: the grader's error, or the judge's on the metric.

    None for an item the run never graded (no report and no error): it is missing,
    not a failure of its judge.
    """
    if report is None:
        errors = getattr(run, "errors", None) or []
        return errors[i] if i < len(errors) else None
    if metric.kind == "criterion":
        cr = leaves.get(metric.key or "")
        if cr is not None and cr.error is not None:
            return f"criterion {metric.key!r}: {cr.error}"
    return failure_reason(report) or report.error or "the judge failed"


def _truth_of(truth: Any, pos: int, key: str) -> Any:
    if isinstance(truth, Mapping):
        return truth.get(key)
    if isinstance(truth, Sequence) and not isinstance(truth, str) and pos < len(truth):
        return truth[pos]
    return None


def _human(
    rubric: Rubric | None, truth: Any, metric: GateMetric, threshold: float | None
) -> float | None:
    """The same number from the item's human labels, or None without them."""
    if rubric is None or truth is None:
        return None
    if metric.kind == "criterion":
        for pos, criterion in enumerate(rubric.leaves()):
            if (criterion.key or f"#{pos}") == metric.key:
                value = _truth_of(truth, pos, metric.key or "")
                if value is None:
                    return None
                try:
                    return parse_verdict(criterion, value).score_value
                except VerdictError:
                    return None
        return None
    score = human_score(rubric, truth)
    if score is None or metric.kind == "mean_score":
        return score
    cut = threshold if threshold is not None else rubric.pass_threshold
    return None if cut is None else float(score >= cut)


def has_labels(run: Any) -> bool:
    """True when the run's dataset copy holds human labels on any item."""
    items = run.dataset.items if run.dataset is not None else []
    return any(getattr(item, "ground_truth", None) is not None for item in items)


def side_values(
    run: Any,
    metric: GateMetric,
    pass_threshold: float | None = None,
    *,
    with_human: bool = True,
    progress: Any = None,
) -> SideValues:
    """The numbers of every item of ``run`` (a ``GradedRun``) for ``metric``.

    ``with_human=False`` skips the human labels (when the other run has none, no
    pair can use them); ``progress`` (a run ``Progress``) counts the items.
    """
    n = len(run.reports)
    out = SideValues(
        ids=list(run.ids),
        value=np.full(n, np.nan),
        failed=np.zeros(n, dtype=bool),
        human=np.full(n, np.nan),
        why=[None] * n,
        labelled=has_labels(run),
    )
    if progress is not None:
        progress.grow(n)
    training = set(getattr(run, "training_ids", None) or ())
    for i, report in enumerate(run.reports):
        if progress is not None:
            progress.advance()
        leaves = _leaves(report) if report is not None else {}
        out.keys_seen.update(leaves)
        if report is not None and report.passed is not None:
            out.carries_pass = True
        value, failed = _judged(report, leaves, metric, pass_threshold)
        if value is not None:
            out.value[i] = value
        out.failed[i] = failed
        if failed:
            out.why[i] = _why(run, i, report, leaves, metric)
        if with_human:
            human = _human(run.item_rubric(i), run.ground_truth(i), metric, pass_threshold)
            if human is not None and run.ids[i] in training:
                out.training_left_out += 1  # the calibration saw this label: no fair test
            elif human is not None:
                out.human[i] = human
        for key, cr in leaves.items():
            credit = cr.score_value if cr.error is None else None
            if credit is not None:
                out.criteria.setdefault(key, np.full(n, np.nan))[i] = credit
    return out


def check_metric(metric: GateMetric, sides: Sequence[SideValues], pass_threshold: Any) -> None:
    """Refuse a metric neither run can give.

    Raises:
        ConfigError: ``criterion:NAME`` names no criterion of either run (the message
            lists the criteria, the nearest first), or ``pass_rate`` without any
            threshold.
    """
    if metric.kind == "criterion":
        keys = sorted(set().union(*(s.keys_seen for s in sides)))
        if metric.key in keys:
            return
        near = difflib.get_close_matches(metric.key or "", keys, n=1)
        hint = f"; did you mean 'criterion:{near[0]}'?" if near else ""
        listed = ", ".join(keys[:20]) + (" ..." if len(keys) > 20 else "")
        raise ConfigError(
            f"--metric criterion:{metric.key}: no criterion of either run has that name or id "
            f"(criteria: {listed or 'none'}){hint}"
        )
    if metric.kind == "pass_rate" and pass_threshold is None:
        if not any(s.carries_pass for s in sides):
            raise ConfigError(
                "--metric pass_rate: no report says whether its item passed (the rubrics have "
                "no pass_threshold); set pass_threshold in the rubric, or give --pass-threshold T"
            )
