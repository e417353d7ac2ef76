"""The judge's own answers, before a calibration changed them: ``metrics --verdicts raw``.

A calibrated report keeps what the judge said in each criterion's ``calibration``
record (``raw_verdict`` / ``raw_selection``) and its probabilities in
``probabilities``; ``confidence`` and the item's ``score`` are the calibrated ones.
The "before calibration" view must pair the raw verdicts with the raw confidence
and the item score those verdicts give, not with the calibrated ones.
"""

from __future__ import annotations

from .._model._reports import CriterionReport, EvaluationReport
from .._model._rubric import Rubric
from .._model._scoring import DEFAULT_POLICY, leaf_reports, score_reports

__all__ = ["raw_confidence", "raw_score"]


def raw_confidence(jr: CriterionReport) -> float | None:
    """The probability the judge gave its own answer (the calibrated one when uncalibrated)."""
    cal = jr.calibration
    if cal is None:
        return jr.confidence
    label = cal.raw_verdict.value if cal.raw_verdict is not None else None
    if cal.raw_selection is not None:
        label = cal.raw_selection.label
    if label is None or jr.probabilities is None:
        return None
    return jr.probabilities.get(label)


def _undo(r: CriterionReport) -> CriterionReport:
    if r.children:
        return r.model_copy(update={"children": [_undo(c) for c in r.children]})
    cal = r.calibration
    if cal is None:
        return r
    return r.model_copy(update={"verdict": cal.raw_verdict, "selection": cal.raw_selection})


def raw_score(rubric: Rubric, report: EvaluationReport) -> float | None:
    """The item's score from the judge's own verdicts (``report.score`` if none changed).

    Scored with the default policy, as the human labels are; a report whose score is
    not the criteria's alone (hybrid metrics, a holistic score) keeps its own.
    """
    criteria = report.report
    if criteria is None or report.metrics or report.llm_raw_score is not None:
        return report.score
    if not any(leaf.calibration is not None for leaf in leaf_reports(criteria)):
        return report.score
    undone = [_undo(r) for r in criteria]
    return score_reports(undone, DEFAULT_POLICY, all_negative=rubric.is_all_negative).score
