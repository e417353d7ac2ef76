"""A run's results as flat rows: one per item and criterion, for ``export`` and spreadsheets.

A row holds the item's id, the criterion's name, its verdict (``MET``, ``UNMET``,
``CANNOT_ASSESS``, a multi-choice option's label or a number on the criterion's
scale), how likely that verdict is (calibrated when a calibration was used), the
judge's reason and the error when the judge failed. An item without a report (it
failed, or was not graded yet) is one row with an empty criterion and its error.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from .._model._reports import CriterionReport, EvaluationReport
from .._model._rubric import CriterionVerdict
from ._read import GradedRun, read_graded

__all__ = ["EXPORT_COLUMNS", "export_rows", "load_run", "write_rows"]

EXPORT_COLUMNS: tuple[str, ...] = (
    "id",
    "criterion",
    "verdict",
    "probability",
    "reason",
    "error",
    "item_score",
)


def load_run(path: str | Path) -> GradedRun:
    """Read a run: the ``--run-dir`` of ``evaluate`` or ``grade``, or the JSONL ``grade -o`` wrote.

    The result holds ``ids``, ``reports`` (an :class:`EvaluationReport` per item, None
    where an item has none) and ``errors`` (why an item has no report), in item order,
    and the run's copy of its dataset when it kept one.

    Raises:
        ConfigError: ``path`` is neither, or cannot be read as one.
    """
    return read_graded(path)


def _verdict(c: CriterionReport) -> str | float | None:
    if c.scale_score is not None:
        return c.scale_score.score
    if c.selection is not None:
        return c.selection.label
    if c.verdict is not None:
        return c.verdict.value
    return None


def _probability(c: CriterionReport) -> float | None:
    """How likely the verdict given is: calibrated when calibrated, else the judge's own."""
    cal = c.calibration
    if cal is not None and cal.p_calibrated is not None:
        if c.selection is None and c.verdict is CriterionVerdict.UNMET:
            return 1.0 - cal.p_calibrated  # a binary calibration gives P(MET)
        if c.selection is None and c.verdict is not CriterionVerdict.MET:
            return None
        return cal.p_calibrated
    return c.confidence


def _criterion_rows(c: CriterionReport, prefix: str) -> Iterator[dict[str, Any]]:
    name = c.criterion.key or c.criterion.requirement[:60]
    name = f"{prefix}{name}"
    yield {
        "criterion": name,
        "verdict": _verdict(c),
        "probability": _probability(c),
        "reason": c.reason or "",
        "error": c.error,
    }
    for child in c.children or []:
        yield from _criterion_rows(child, f"{name}/")


def report_rows(
    item_id: str, report: EvaluationReport | None, error: str | None = None
) -> list[dict[str, Any]]:
    """The rows of one item (one per criterion; one with the error when there is no report)."""
    if report is None or not report.report:
        why = error if report is None else (report.error or error)
        score = None if report is None else report.score
        if report is None and why is None:
            why = "not graded"
        return [
            dict.fromkeys(EXPORT_COLUMNS)
            | {"id": item_id, "criterion": "", "reason": "", "error": why, "item_score": score}
        ]
    return [
        {"id": item_id, **row, "item_score": report.score}
        for c in report.report
        for row in _criterion_rows(c, "")
    ]


def export_rows(run: GradedRun) -> Iterator[dict[str, Any]]:
    """Every row of ``run``, item by item, in the order of :data:`EXPORT_COLUMNS`."""
    for i, item_id in enumerate(run.ids):
        error = run.errors[i] if i < len(run.errors) else None
        for row in report_rows(item_id, run.reports[i], error):
            yield {k: row.get(k) for k in EXPORT_COLUMNS}


def write_rows(rows: Iterator[dict[str, Any]], out: IO[str], fmt: str) -> int:
    """Write ``rows`` to ``out`` as ``jsonl`` or ``csv``; returns how many were written."""
    n = 0
    if fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=list(EXPORT_COLUMNS), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if v is None else v for k, v in row.items()})
            n += 1
        return n
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        n += 1
    return n
