"""Calibration examples from the rubric reach the judge, capped by max_examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricjudge import (
    CalibrationExample,
    ConfigError,
    Criterion,
    CriterionGrader,
    FakeJudge,
    Rubric,
)
from rubricjudge._cli.main import main

EXAMPLES = {
    "excellent": [CalibrationExample(output="EX-ONE", score=9.0, explanation="why one")],
    "good": [CalibrationExample(output="EX-TWO", score=6.0, explanation="why two")],
    "poor": [CalibrationExample(output="EX-THREE", score=1.0, explanation="why three")],
}


def _rubric() -> Rubric:
    return Rubric([Criterion(name="c", requirement="Is correct", examples=EXAMPLES)])


@pytest.mark.parametrize(("cap", "shown"), [(None, 3), (2, 2), (1, 1), (0, 0)])
def test_max_examples_caps_what_the_judge_sees(cap: int | None, shown: int) -> None:
    judge = FakeJudge([{"reason": "r", "verdict": "MET"}])
    _rubric().grade_sync(to_grade="x", grader=CriterionGrader(judge, max_examples=cap))
    prompt = judge.requests[0].user
    assert sum(tag in prompt for tag in ("EX-ONE", "EX-TWO", "EX-THREE")) == shown
    if shown:
        assert "why one" in prompt  # explanations travel with their examples


def test_negative_max_examples_is_refused() -> None:
    with pytest.raises(ConfigError, match="max_examples"):
        CriterionGrader("fake", max_examples=-1)


def test_grade_cli_max_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rubric = Path(__file__).parents[2] / "examples" / "openrubricrl" / "code_quality_basic.json"
    out = tmp_path / "out.jsonl"
    code = main(
        [
            "grade",
            str(rubric),
            "--text",
            "def f(): pass",
            "--judge",
            "fake",
            "--max-examples",
            "0",
            "-o",
            str(out),
        ]
    )
    assert code == 0
    report = json.loads(out.read_text().splitlines()[0])
    assert report["score"] is not None
