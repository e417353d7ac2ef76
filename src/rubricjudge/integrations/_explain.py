"""What the framework adapters say about a report: one line per criterion, and a breakdown."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._model._reports import CriterionReport, EvaluationReport

__all__ = ["breakdown", "explain_report", "leaves"]


def leaves(report: EvaluationReport) -> Iterator[CriterionReport]:
    """The report's leaf criteria, in order."""
    stack = list(reversed(report.report or []))
    while stack:
        c = stack.pop()
        if c.children:
            stack.extend(reversed(c.children))
        else:
            yield c


def name_of(c: CriterionReport) -> str:
    """The criterion's key, or the start of its requirement."""
    return c.criterion.key or c.criterion.requirement[:40]


def answer_of(c: CriterionReport) -> Any:
    """The verdict (``MET`` ...), option label or scale score; ``ERROR`` when its judge failed."""
    if c.error is not None:
        return "ERROR"
    if c.selection is not None:
        return c.selection.label
    if c.scale_score is not None:
        return c.scale_score.score
    return c.verdict.value if c.verdict is not None else None


def explain_report(report: EvaluationReport) -> str:
    """One line per criterion: ``- KEY: ANSWER: reason`` (``ERROR (why)`` for a failed judge)."""
    lines = []
    for c in leaves(report):
        said = answer_of(c)
        if c.error is not None:
            said = f"ERROR ({c.error})"
        elif isinstance(said, float):
            said = f"{said:g}"
        lines.append(f"- {name_of(c)}: {said}" + (f": {c.reason}" if c.reason else ""))
    return "\n".join(lines)


def breakdown(report: EvaluationReport) -> dict[str, Any]:
    """Each criterion's answer by key."""
    return {name_of(c): answer_of(c) for c in leaves(report)}
