"""What a new user tripped over in the first hour (issue 35): each slip, checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricjudge._cli.main import main

RUBRIC = "- name: c\n  weight: 1\n  requirement: States A\n"


@pytest.fixture
def rubric(tmp_path: Path) -> Path:
    path = tmp_path / "r.yaml"
    path.write_text(RUBRIC, encoding="utf-8")
    return path


NOTE = "the local judge is not calibrated on your labels"


def test_the_uncalibrated_local_judge_is_named_once_with_the_fix(
    rubric: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["grade", str(rubric), "--text", "A", "--dry-run"]) == 0
    err = capsys.readouterr().err
    assert err.count(NOTE) == 1
    assert "rubricjudge calibrate DATASET --train 20 -o cal.json" in err
    assert "--calibration cal.json" in err

    args = ["evaluate", "example:llm_rubric_microsoft", "--dry-run", "--max-items", "1"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert err.count(NOTE) == 1 and "rubricjudge label example:llm_rubric_microsoft" in err


@pytest.mark.parametrize(
    "extra",
    [["--judge", "fake"], ["--grader", "holistic"], ["--judges", "fake", "fake/b"]],
)
def test_no_note_for_other_judges_or_graders(
    rubric: Path, extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["grade", str(rubric), "--text", "A", "--dry-run", *extra]) == 0
    assert NOTE not in capsys.readouterr().err


def test_no_note_with_a_calibration(rubric: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rubricjudge._cli._grader_args import uncalibrated_note
    from rubricjudge._cli.main import build_parser

    args = build_parser().parse_args(["grade", str(rubric), "--calibration", "cal.json"])
    assert uncalibrated_note(args) is None
    args = build_parser().parse_args(["grade", str(rubric), "--judges", "local", "fake"])
    assert uncalibrated_note(args) is not None
