"""The message of a failed rubric assertion: the score, then every criterion's verdict and reason.

Text from the judge and the output is shown with control characters escaped, so
neither can write terminal escape sequences into a test log.
"""

from __future__ import annotations

import unicodedata

from .._model._reports import CriterionReport, EvaluationReport
from .._model._scoring import leaf_reports

__all__ = ["failure_message", "safe_text"]

_EXCERPT = 300


def safe_text(text: str) -> str:
    """``text`` with control characters (but newlines and tabs) written as escapes."""
    return "".join(
        ch
        if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf")
        else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )


def _answer(cr: CriterionReport) -> str:
    if cr.error is not None:
        return "ERROR"
    if cr.selection is not None:
        return f"{cr.selection.label} ({cr.selection.value:g})"
    if cr.scale_score is not None:
        return f"{cr.scale_score.score:g}"
    return cr.verdict.value if cr.verdict is not None else "-"


def _mark(cr: CriterionReport) -> str:
    """``+`` the criterion helped the score, ``-`` it hurt, ``~`` partly, ``?`` N/A, ``!`` error."""
    if cr.error is not None:
        return "!"
    value = cr.score_value
    if value is None:
        return "?"
    if cr.criterion.weight < 0:  # a penalty: MET (credit 1) is what hurts
        value = 1.0 - value
    return "+" if value >= 1.0 else "-" if value <= 0.0 else "~"


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in safe_text(text).splitlines() or [""])


def _criteria(report: EvaluationReport) -> list[str]:
    out = []
    for pos, cr in enumerate(leaf_reports(report.report or [])):
        name = cr.criterion.key or f"#{pos}"
        sure = f", confidence {cr.confidence:.2f}" if cr.confidence is not None else ""
        out.append(
            f"  {_mark(cr)} {_answer(cr):<9} {safe_text(name)} (weight {cr.criterion.weight:g}"
            f"{sure}): {safe_text(cr.criterion.requirement)}"
        )
        if cr.error is not None:
            out.append(_indent(f"judge failed: {cr.error}", "      "))
        elif cr.reason:
            out.append(_indent(f"reason: {cr.reason}", "      "))
    return out


def _output(output: object) -> str:
    text = output if isinstance(output, str) else repr(output)
    more = f" (first {_EXCERPT} of {len(text)} characters)" if len(text) > _EXCERPT else ""
    return f"output{more}:\n" + _indent(text[:_EXCERPT], "  | ")


def failure_message(
    headline: str, report: EvaluationReport, output: object, *, rubric_name: str, judge: str
) -> str:
    """The whole message: what failed, under which rubric and judge, each criterion, the output."""
    lines = [f"{headline} (rubric {rubric_name}, judge {judge})"]
    if report.error is not None:
        lines.append(_indent(f"grading failed: {report.error}", "  "))
    criteria = _criteria(report)
    if criteria:
        lines.append("criteria (+ helped, - hurt, ~ partly, ? N/A, ! judge failed):")
        lines.extend(criteria)
    lines.append(_output(output))
    return "\n".join(lines)
