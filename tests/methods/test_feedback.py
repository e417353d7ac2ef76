"""Feedback: the deterministic summary and the LLM summary with its fallback."""

from __future__ import annotations

from typing import Any

from rubricjudge import Criterion, JudgeError, Rubric
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._methods._feedback import (
    generate_criterion_feedback,
    generate_deterministic_summary,
    generate_feedback_summary,
)
from rubricjudge._model._scoring import finalize, reports_from_verdicts
from tests.support.helpers import graded_levels

LEVELS = graded_levels("Unclear", "Understandable", "Covers all required topics with depth")
RUBRIC = Rubric(
    [
        Criterion(name="Clarity", requirement="Is clear to a newcomer", weight=0.5, options=LEVELS),
        Criterion(
            name="Completeness", requirement="Covers every topic", weight=0.5, options=LEVELS
        ),
        Criterion(name="Sources", requirement="Cites a source for each claim", weight=0.2),
        Criterion(name="Rudeness", requirement="Insults the reader", weight=-0.3),
    ],
    name="Content Quality",
    pass_threshold=0.7,
)


def report(verdicts: list[Any]) -> Any:
    return finalize(RUBRIC, reports_from_verdicts(RUBRIC, verdicts))


def test_deterministic_summary() -> None:
    r = report(["excellent", "Pass", "UNMET", "MET"])
    text = generate_deterministic_summary(RUBRIC, r)
    expected_score = RUBRIC.compute_score(["excellent", "Pass", "UNMET", "MET"])
    status = "PASSED" if expected_score >= 0.7 else "FAILED"
    lines = text.splitlines()
    assert lines[0] == f"Evaluation {status} for rubric 'Content Quality'."
    assert lines[1] == f"Overall score: {expected_score:.0%}"
    assert "- Clarity: Excellent (score: 1.00)" in lines
    assert "- Completeness: Pass (score: 0.70)" in lines
    assert "- Rudeness: MET (penalty) (score: 1.00)" in lines
    tips = lines[lines.index("Suggestions for improvement:") + 1 :]
    assert tips == [
        "- Completeness: aim for 'Excellent' - Covers all required topics with depth",
        "- Sources: meet the requirement - Cites a source for each claim",
        "- Rudeness: remove this problem - Insults the reader",
    ]
    assert text.source == "deterministic" and not text.fell_back


def test_criterion_feedback_finds_the_criterion_in_a_report() -> None:
    r = report(["fail", "excellent", "MET", "UNMET"])
    assert generate_criterion_feedback(RUBRIC.criteria[0], r) == "Clarity: Fail (score: 0.00)"
    assert generate_criterion_feedback(RUBRIC.criteria[1], (r.report or [])[1]) == (
        "Completeness: Excellent (score: 1.00)"
    )
    perfect = generate_deterministic_summary(
        RUBRIC, report(["excellent", "excellent", "MET", "UNMET"])
    )
    assert "Suggestions" not in perfect and "PASSED" in perfect


async def test_llm_summary_and_fallback() -> None:
    r = report(["fail", "Pass", "MET", "UNMET"])
    judge = FakeJudge([{"summary": "Clarity needs work; completeness is fine."}])
    text = await generate_feedback_summary(RUBRIC, r, judge=judge)
    assert text == "Clarity needs work; completeness is fine." and text.source == "llm"
    assert '"criterion": "Clarity"' in judge.requests[0].user
    for bad in (JudgeError("timed out", category="timeout"), {"summary": "  "}, "not json"):
        text = await generate_feedback_summary(RUBRIC, r, judge=FakeJudge([bad]))
        assert text == generate_deterministic_summary(RUBRIC, r)
        assert text.source == "deterministic" and text.fell_back
        assert text.fallback_reason
    assert (await generate_feedback_summary(RUBRIC, r)).source == "deterministic"
