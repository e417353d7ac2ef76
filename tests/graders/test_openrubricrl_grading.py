"""OpenRubricRL rubrics graded end to end: calibration examples, subcriteria, the scale."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricjudge import Rubric
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._graders._criterion_prompts import calibration_examples, criterion_prompt
from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._fake import FakeJudge

EXAMPLES = Path(__file__).parents[2] / "examples" / "openrubricrl"


def test_calibration_examples_reach_the_judge() -> None:
    rubric = Rubric.from_file(EXAMPLES / "code_quality_basic.json")
    judge = FakeJudge(default={"reason": "r", "verdict": "MET"})
    CriterionGrader(judge=judge).grade_sync(rubric, "def f(a, b): return max(a, b)")
    correctness = [r for r in judge.requests if "solve the problem correctly" in r.user]
    assert len(correctness) == 1
    text = correctness[0].user
    assert "return a if a > b else b" in text
    assert "score 9" in text and "Correct, concise, and readable" in text
    others = [r for r in judge.requests if r is not correctness[0]]
    assert all("Calibration" not in r.user for r in others)


def test_subcriteria_are_shown_and_scored() -> None:
    rubric = Rubric.from_file(EXAMPLES / "code_quality_basic.json")

    def by_text(request: JudgeRequest) -> dict[str, str]:
        # naming MET, formatting UNMET, everything else MET
        verdict = "UNMET" if "PEP 8" in request.user else "MET"
        return {"reason": "r", "verdict": verdict}

    judge = FakeJudge(default=by_text)
    report = CriterionGrader(judge=judge).grade_sync(rubric, "x")
    asked = " ".join(r.user for r in judge.requests)
    assert "descriptive variable names" in asked and "PEP 8" in asked
    assert len(judge.requests) == 4  # correctness, naming, formatting, efficiency
    # style = mean(naming 1, formatting 0) = 0.5; score = 0.5*1 + 0.3*0.5 + 0.2*1
    assert report.score == pytest.approx(0.85)
    assert rubric.scale is not None
    assert report.scaled_score == pytest.approx(8.5)
    style = next(r for r in report.report or [] if r.name == "style")
    assert [c.name for c in style.children or []] == ["naming", "formatting"]


def test_discrete_scale_rounds() -> None:
    rubric = Rubric.from_file(EXAMPLES / "dialogue_quality.yaml")
    replies = [{"reason": "r", "verdict": v} for v in ("MET", "MET", "UNMET", "UNMET")]
    report = CriterionGrader(judge=FakeJudge(replies)).grade_sync(rubric, "x")
    # relevance 0.4 + helpfulness 0.3 = 0.7 -> 1 + 0.7 * 4 = 3.8 -> 4 on a discrete 1-5 scale
    assert report.score == pytest.approx(0.7)
    assert report.scaled_score == 4.0


def test_max_examples_takes_levels_in_turn() -> None:
    rubric = Rubric.from_dict(
        {
            "name": "r",
            "version": "1.0.0",
            "scale": {"min": 0, "max": 10},
            "criteria": [
                {
                    "name": "c",
                    "description": "d",
                    "weight": 1.0,
                    "examples": {
                        level: [
                            {"input": "i", "output": f"{level}-{k}", "score": s, "explanation": "e"}
                            for k in range(3)
                        ]
                        for level, s in (("excellent", 9), ("poor", 1))
                    },
                }
            ],
        }
    )
    c = rubric.criteria[0]
    assert [ex.output for _, ex in calibration_examples(c, 3)] == [
        "excellent-0",
        "poor-0",
        "excellent-1",
    ]
    assert len(calibration_examples(c)) == 6 and calibration_examples(c, 0) == []
    assert "poor-0" in criterion_prompt(c, max_examples=2)
    assert "excellent-1" not in criterion_prompt(c, max_examples=2)
    assert "Calibration" not in criterion_prompt(c, max_examples=0)
