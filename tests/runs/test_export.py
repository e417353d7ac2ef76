"""Per-item results: ``export``, ``evaluate -o``, ``runs.load_run`` and ``grade``'s item table."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from rubricjudge._cli.main import main
from rubricjudge.runs import export_rows, load_run

RUBRIC = """\
- name: cause
  weight: 10
  requirement: Names Rayleigh scattering as the cause
- name: myth
  weight: -5
  requirement: Claims the sky reflects the ocean
"""


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    lines = [
        {"id": "a", "submission": "Rayleigh scattering."},
        {"id": "b", "submission": "It reflects the ocean."},
    ]
    answers.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return rubric, answers


def test_export_a_grade_run_dir_and_its_jsonl_as_rows(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric, answers = files
    out, run = tmp_path / "out.jsonl", tmp_path / "run"
    args = ["grade", str(rubric), str(answers), "--judge", "fake", "--evidence", "off"]
    assert main([*args, "-o", str(out), "--run-dir", str(run)]) == 0
    capsys.readouterr()

    for source in (out, run):
        assert main(["export", str(source)]) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [(r["id"], r["criterion"], r["verdict"]) for r in rows] == [
            ("a", "cause", "MET"),
            ("a", "myth", "MET"),
            ("b", "cause", "MET"),
            ("b", "myth", "MET"),
        ]
        assert list(rows[0]) == [
            "id",
            "criterion",
            "verdict",
            "probability",
            "reason",
            "error",
            "item_score",
        ]
        assert all(r["error"] is None and r["item_score"] == 0.5 for r in rows)

    table = tmp_path / "rows.csv"
    assert main(["export", str(run), "--format", "csv", "-o", str(table)]) == 0
    assert "wrote 4 rows" in capsys.readouterr().err
    with table.open(encoding="utf-8", newline="") as f:
        got = list(csv.DictReader(f))
    assert [(r["id"], r["criterion"], r["verdict"], r["error"]) for r in got][:2] == [
        ("a", "cause", "MET", ""),
        ("a", "myth", "MET", ""),
    ]


def test_load_run_reads_reports_and_export_rows_flatten_them(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric, answers = files
    run = tmp_path / "run"
    args = ["grade", str(rubric), str(answers), "--judge", "fake", "--run-dir", str(run)]
    assert main(args) == 0
    capsys.readouterr()
    loaded = load_run(run)
    assert loaded.ids == ["a", "b"]
    assert all(r is not None and r.report is not None for r in loaded.reports)
    assert len(list(export_rows(loaded))) == 4


def test_an_item_that_failed_is_one_row_with_its_error(tmp_path: Path) -> None:
    from rubricjudge._runs._export import write_rows
    from rubricjudge._runs._read import GradedRun

    run = GradedRun("x", ["a"], [None], errors=["judge failed: timeout"])
    rows = list(export_rows(run))
    assert rows == [
        {
            "id": "a",
            "criterion": "",
            "verdict": None,
            "probability": None,
            "reason": "",
            "error": "judge failed: timeout",
            "item_score": None,
        }
    ]
    buf = io.StringIO()
    assert write_rows(iter(rows), buf, "csv") == 1
    assert buf.getvalue().splitlines()[1] == "a,,,,,judge failed: timeout,"


def test_export_refuses_what_is_not_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(tmp_path / "nowhere")]) == 1
    assert "neither a run directory nor a JSONL file" in capsys.readouterr().err


def test_evaluate_writes_every_report_with_o(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "reports.jsonl"
    args = ["evaluate", "example:llm_rubric_microsoft", "--judge", "fake", "--max-items", "3"]
    assert main([*args, "-o", str(out)]) == 0
    capsys.readouterr()
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 3 and list(lines[0])[0] == "id"
    assert all(len(line["report"]) == 9 for line in lines)
    # the file is one `export` and `report` can read
    assert main(["export", str(out)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3 * 9


def test_grade_ends_a_small_run_with_a_table_of_items(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    rubric, answers = files
    args = ["grade", str(rubric), str(answers), "--judge", "fake", "--evidence", "off"]
    assert main(args) == 0
    err = capsys.readouterr().err.splitlines()
    start = err.index("items (id, score, each criterion):")
    assert err[start + 1].split() == ["a", "0.500", "cause=MET", "myth=MET"]
    assert err[start + 2].split()[0] == "b"


def test_grade_leaves_the_table_out_of_a_large_run(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric, _ = files
    many = tmp_path / "many.jsonl"
    many.write_text(
        "".join(json.dumps({"id": str(i), "submission": "x"}) + "\n" for i in range(11)),
        encoding="utf-8",
    )
    assert main(["grade", str(rubric), str(many), "--judge", "fake"]) == 0
    assert "items (id, score" not in capsys.readouterr().err


def test_the_probability_is_that_of_the_verdict_given() -> None:
    from rubricjudge import Criterion, CriterionVerdict
    from rubricjudge._runs._export import report_rows
    from rubricjudge.reports import CalibrationRecord, CriterionReport, EvaluationReport

    crit = Criterion(name="c", weight=1, requirement="States A")
    calibrated = CriterionReport(
        criterion=crit,
        verdict=CriterionVerdict.UNMET,
        confidence=0.62,
        calibration=CalibrationRecord(raw_verdict=CriterionVerdict.MET, p_calibrated=0.3),
    )
    own = CriterionReport(criterion=crit, verdict=CriterionVerdict.MET, confidence=0.8)
    report = EvaluationReport(score=0.5, report=[calibrated, own])
    rows = report_rows("x", report)
    assert [r["probability"] for r in rows] == [pytest.approx(0.7), 0.8]
