"""Feedback on an evaluation: a deterministic summary and an LLM-written one.

The deterministic summary reads::

    Evaluation PASSED for rubric 'Content Quality'.
    Overall score: 85%
    - Clarity: excellent (score: 1.00)
    - Completeness: pass (score: 0.70)

    Suggestions for improvement:
    - Completeness: aim for 'Excellent' - Covers all required topics with depth

The LLM summary asks a judge for a few sentences about the same facts; on any
failure it falls back to the deterministic text and says so (``source`` and
``fallback_reason`` on the returned :class:`FeedbackText`).
"""

from __future__ import annotations

import json
import logging
from typing import Any, Literal

from .._errors import ConfigError
from .._judges._base import JudgeRequest
from .._judges._registry import get_judge
from .._model._reports import CriterionReport, EvaluationReport
from .._model._rubric import Criterion, CriterionOption, CriterionVerdict, Rubric

__all__ = [
    "FeedbackText",
    "generate_criterion_feedback",
    "generate_deterministic_summary",
    "generate_feedback_summary",
]

log = logging.getLogger("rubricjudge.feedback")
FeedbackSource = Literal["deterministic", "llm"]


class FeedbackText(str):
    """A summary string that also says where it came from.

    ``source`` is ``"llm"`` or ``"deterministic"``; ``fallback_reason`` is set when an
    LLM summary was asked for and the deterministic one was used instead.
    """

    source: FeedbackSource
    fallback_reason: str | None

    def __new__(
        cls, text: str, source: FeedbackSource = "deterministic", fallback_reason: str | None = None
    ) -> FeedbackText:
        obj = super().__new__(cls, text)
        obj.source = source
        obj.fallback_reason = fallback_reason
        return obj

    @property
    def fell_back(self) -> bool:
        """True when the LLM summary failed and this is the deterministic one."""
        return self.fallback_reason is not None


def _name(c: Criterion) -> str:
    return c.name or c.id or c.requirement[:60]


def _level(r: CriterionReport) -> str:
    if r.level_id:
        return r.level_id
    if r.selection is not None:
        return r.selection.label
    if r.scale_score is not None:
        return f"{r.scale_score.score:g} on the scale"
    if r.verdict is not None:
        return r.verdict.value
    return "not graded"


def _find(criterion: Criterion, report: CriterionReport | EvaluationReport) -> CriterionReport:
    if isinstance(report, CriterionReport):
        return report

    def walk(rs: list[CriterionReport]) -> CriterionReport | None:
        for r in rs:
            if r.criterion is criterion or (criterion.key and r.criterion.key == criterion.key):
                return r
            hit = walk(r.children or [])
            if hit is not None:
                return hit
        return None

    found = walk(report.report or [])
    if found is None:
        raise ValueError(f"criterion {_name(criterion)!r} is not in the report")
    return found


def generate_criterion_feedback(
    criterion: Criterion, report: CriterionReport | EvaluationReport
) -> str:
    """One line about one criterion: ``"Clarity: excellent (score: 1.00)"``.

    ``report`` is the criterion's report, or an evaluation report containing it.
    """
    r = _find(criterion, report)
    value = r.score_value
    score = "n/a" if value is None else f"{value:.2f}"
    if r.children:
        return f"{_name(criterion)}: (score: {score})"
    if r.error is not None:
        return f"{_name(criterion)}: {_level(r)} (score: {score}; error: {r.error})"
    penalty = " (penalty)" if criterion.weight < 0 and r.verdict is CriterionVerdict.MET else ""
    return f"{_name(criterion)}: {_level(r)}{penalty} (score: {score})"


def _next_level(c: Criterion, r: CriterionReport) -> CriterionOption | None:
    """Return the closest better option than the chosen one, for the weight's sign."""
    if c.options is None or r.selection is None or r.selection.na:
        return None
    sign = -1.0 if c.weight < 0 else 1.0
    current = sign * r.selection.value
    better = [o for o in c.options if not o.na and sign * o.value > current]
    return min(better, key=lambda o: sign * o.value) if better else None


def _suggestion(r: CriterionReport) -> str | None:
    c = r.criterion
    if r.error is not None or r.is_na:
        return None
    if c.options is not None:
        nxt = _next_level(c, r)
        if nxt is None:
            return None
        desc = nxt.description or ", ".join(nxt.indicators) or nxt.label
        return f"{_name(c)}: aim for {nxt.label!r} - {desc}"
    if c.weight >= 0 and r.verdict is CriterionVerdict.UNMET:
        return f"{_name(c)}: meet the requirement - {c.requirement}"
    if c.weight < 0 and r.verdict is CriterionVerdict.MET:
        return f"{_name(c)}: remove this problem - {c.requirement}"
    return None


def _lines(reports: list[CriterionReport], depth: int, out: list[str], tips: list[str]) -> None:
    for r in reports:
        out.append("  " * depth + "- " + generate_criterion_feedback(r.criterion, r))
        if r.children:
            _lines(r.children, depth + 1, out, tips)
        else:
            tip = _suggestion(r)
            if tip is not None:
                tips.append(tip)


def _status(report: EvaluationReport) -> str:
    if report.passed is True:
        return "PASSED"
    if report.passed is False:
        return "FAILED"
    return "SCORED (no pass threshold)" if report.score is not None else "NOT GRADED"


def generate_deterministic_summary(rubric: Rubric, report: EvaluationReport) -> FeedbackText:
    """Return the template summary: status, overall score, one line per criterion, suggestions."""
    title = rubric.name or rubric.id or "rubric"
    lines = [f"Evaluation {_status(report)} for rubric {title!r}."]
    if report.score is None:
        lines.append(f"Overall score: n/a ({report.error or 'nothing could be graded'})")
    else:
        lines.append(f"Overall score: {report.score:.0%}")
    tips: list[str] = []
    _lines(report.report or [], 0, lines, tips)
    if report.error_count:
        lines.append(f"{report.error_count} criteria could not be evaluated (see their errors).")
    if tips:
        lines += ["", "Suggestions for improvement:", *(f"- {t}" for t in tips)]
    return FeedbackText("\n".join(lines), "deterministic")


_SYSTEM = (
    "You write short, actionable feedback on an evaluation. You get the rubric's verdicts "
    "as JSON. Write 3 to 5 sentences: the outcome, the main strengths, and what to improve "
    "first, naming the criteria. Do not invent results that are not in the data. "
    'Reply with a JSON object {"summary": <text>}.'
)
_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"summary": {"type": "string"}},
    "required": ["summary"],
    "additionalProperties": False,
}


def _facts(rubric: Rubric, report: EvaluationReport) -> dict[str, Any]:
    def leaf(r: CriterionReport) -> dict[str, Any]:
        return {
            "criterion": _name(r.criterion),
            "requirement": r.criterion.requirement,
            "weight": r.criterion.weight,
            "level": _level(r),
            "score": r.score_value,
            "error": r.error,
            "suggestion": _suggestion(r),
        }

    def leaves(rs: list[CriterionReport]) -> list[dict[str, Any]]:
        return [x for r in rs for x in (leaves(r.children) if r.children else [leaf(r)])]

    return {
        "rubric": rubric.name or rubric.id,
        "passed": report.passed,
        "score": report.score,
        "pass_threshold": rubric.pass_threshold,
        "criteria": leaves(report.report or []),
    }


async def generate_feedback_summary(
    rubric: Rubric, report: EvaluationReport, judge: Any = None, *, llm: Any = None
) -> FeedbackText:
    """Return a judge-written summary, or the deterministic one when there is no judge or it fails.

    ``judge`` is a Judge or a spec string (``llm=`` is dataknobs' name for it). The
    result's ``source`` says which one you got and ``fallback_reason`` why the
    judge's was not used.
    """
    if llm is not None:
        if judge is not None:
            raise ConfigError("give judge= or llm= (the same thing), not both")
        judge = llm
    fallback = generate_deterministic_summary(rubric, report)
    if judge is None:
        return fallback

    try:
        the_judge = get_judge(judge)
        request = JudgeRequest(
            system=_SYSTEM,
            user=json.dumps(_facts(rubric, report), indent=2, ensure_ascii=False),
            schema=_SCHEMA,
            schema_name="feedback_summary",
            tags={"purpose": "feedback"},
        )
        resp = await the_judge.judge(request)
        text = resp.data.get("summary")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"the reply has no summary text: {resp.raw_text[:120]!r}")
        return FeedbackText(text.strip(), "llm")
    except Exception as e:  # any failure: the deterministic summary, said out loud
        reason = f"{type(e).__name__}: {e}"
        log.warning("LLM feedback summary failed, using the deterministic one: %s", reason)
        return FeedbackText(str(fallback), "deterministic", reason)
