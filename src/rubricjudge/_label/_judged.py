"""What the judge said about each item of the dataset being labelled, read from a run.

The run (``evaluate`` / ``grade`` ``--run-dir``) must have graded this very dataset:
the same items, submissions, queries and rubrics (labels may differ, since labelling
is what changes them); its fingerprint is checked as ``metrics`` checks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._datasets._labels import leaf_names
from .._errors import ConfigError
from .._model._reports import CriterionReport
from .._model._scoring import leaf_reports
from .._runs._fingerprint import graded_this_dataset
from .._runs._result import RunResult

__all__ = ["Judged", "read_run"]


@dataclass(frozen=True)
class Judged:
    """The judge's answer on one criterion of one item, and how sure it was."""

    answer: str  # MET / UNMET / CANNOT_ASSESS, an option label, a scale number, or "error"
    confidence: float | None
    reason: str
    final: str | None = None
    """The answer that counted, when a calibration or the evidence check changed
    ``answer``; the reason was written for it, not for ``answer``."""

    def to_data(self) -> dict[str, Any]:
        """As the API sends it."""
        return {
            "answer": self.answer,
            "confidence": self.confidence,
            "reason": self.reason,
            "final": self.final,
        }


def _answer(jr: CriterionReport) -> str:
    """What the judge itself said (before a calibration changed it); ``error`` if it failed."""
    if jr.error is not None:
        return "error"
    cal = jr.calibration
    selection = cal.raw_selection if cal is not None and cal.raw_selection else jr.selection
    verdict = cal.raw_verdict if cal is not None and cal.raw_verdict else jr.verdict
    if selection is not None:
        return selection.label
    if jr.scale_score is not None:
        return f"{jr.scale_score.score:g}"
    return verdict.value if verdict is not None else "error"


def _judged(jr: CriterionReport) -> Judged:
    """The judge's own answer and how sure it was of it: its most probable answer.

    Taken from the token probabilities, before an evidence check or a calibration
    changed the verdict: the order asks where the judge itself hesitated.
    """
    probs = jr.probabilities
    if jr.error is not None or not probs:
        answer = _answer(jr)
        got = Judged(answer, None if jr.error is not None else jr.confidence, jr.reason)
    else:
        answer = max(probs, key=lambda k: probs[k])
        got = Judged(answer, probs[answer], jr.reason or "")
    final = _final(jr)
    if final is not None and final != answer:
        return Judged(got.answer, got.confidence, got.reason, final)
    return got


def _final(jr: CriterionReport) -> str | None:
    """The answer that counted (after calibration and the evidence check), or None."""
    if jr.error is not None:
        return None
    if jr.selection is not None:
        return jr.selection.label
    if jr.scale_score is not None:
        return f"{jr.scale_score.score:g}"
    return jr.verdict.value if jr.verdict is not None else None


def read_run(
    run_dir: str | Path, dataset: Any
) -> tuple[list[dict[str, Judged]], list[float | None]]:
    """Per dataset item, the judge's answer on each criterion (by label name), and its score.

    Raises:
        ConfigError: not a run directory, or a run of another dataset.
    """
    path = Path(run_dir)
    result = RunResult.open(path)
    if not graded_this_dataset(path, dataset):
        raise ConfigError(
            f"--run-dir {str(path)!r} graded another dataset (its items, submissions, queries "
            "or rubrics differ from DATASET's); give the run that graded this dataset"
        )
    scores: list[float | None] = [None] * len(dataset.items)
    for o in result.outcomes:
        if 0 <= o.index < len(scores):
            scores[o.index] = o.score
    out: list[dict[str, Judged]] = []
    for i, report in enumerate(result.iter_reports()):
        if i >= len(dataset.items):
            break
        got: dict[str, Judged] = {}
        if report is not None and report.report:
            names = leaf_names(dataset.get_item_rubric(i))
            for name, jr in zip(names, leaf_reports(report.report), strict=False):
                got[name] = _judged(jr)
        out.append(got)
    out.extend({} for _ in range(len(dataset.items) - len(out)))
    return out, scores
