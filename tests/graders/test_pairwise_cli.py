"""``grade --pairwise`` input errors, dry runs, ``metrics`` and ``report`` on its results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricjudge._cli.main import main
from tests.support.pairwise_helpers import RUBRIC_YAML, read_lines, write_pairs

GOOD = {"id": "p1", "submission_a": "Paris.", "submission_b": "Lyon.", "label": "a"}


@pytest.fixture
def rubric(tmp_path: Path) -> Path:
    path = tmp_path / "rubric.yaml"
    path.write_text(RUBRIC_YAML)
    return path


def _run(rubric: Path, pairs: Path, *extra: str) -> int:
    return main(["grade", str(rubric), str(pairs), "--pairwise", "--judge", "fake", *extra])


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"id": "x", "submission_a": "A"}, "p.jsonl line 2: missing 'submission_b'"),
        ({"id": "x", "submission": "A"}, "this looks like a grade line: drop --pairwise"),
        ({**GOOD, "id": "x", "label": "first"}, "line 2: label 'first' is not 'a', 'b' or 'tie'"),
        ({**GOOD, "id": "x", "query": 3}, "line 2: 'query' is int; give text"),
        ({**GOOD, "id": "x", "submission_b": {"oops": 1}}, "line 2: submission_b"),
        ({**GOOD}, "line 2: the id 'p1' of line 1 again"),
    ],
)
def test_bad_pair_lines_name_the_line_and_the_key(
    tmp_path: Path, rubric: Path, capsys: pytest.CaptureFixture[str], line: object, message: str
) -> None:
    pairs = write_pairs(tmp_path / "p.jsonl", [GOOD, line])  # type: ignore[list-item]
    out = tmp_path / "out.jsonl"
    out.write_text("kept\n")
    assert _run(rubric, pairs, "-o", str(out)) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert out.read_text() == "kept\n"  # nothing the user had is lost


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--grader", "one-shot"], "not --grader one-shot"),
        (["--run-dir", "runs/x"], "--run-dir cannot be used with --pairwise yet"),
        (["--text", "hello"], "--pairwise reads an INPUT file; --text grades one submission"),
        (["--escalate-to", "fake"], "--escalate-to apply to grading one submission at a time"),
        (["--batch-api"], "--batch-api cannot be used with --pairwise yet"),
    ],
)
def test_flags_pairwise_cannot_honour_are_refused(
    tmp_path: Path, rubric: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    pairs = write_pairs(tmp_path / "p.jsonl", [GOOD])
    assert _run(rubric, pairs, *extra) == 1
    assert message in capsys.readouterr().err


def test_a_criterion_without_a_judge_cannot_be_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text(
        "- name: valid\n  weight: 1\n  requirement: Is JSON\n"
        "  scoring_method: {type: json_schema, schema: {type: object}}\n"
    )
    pairs = write_pairs(tmp_path / "p.jsonl", [GOOD])
    assert _run(rubric, pairs) == 1
    assert "criterion 'valid' is scored by json_schema" in capsys.readouterr().err
    assert _run(rubric, pairs, "--grader", "holistic") == 0


def test_dry_run_counts_both_orders(
    tmp_path: Path, rubric: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = write_pairs(tmp_path / "p.jsonl", [GOOD, {**GOOD, "id": "p2"}])
    assert _run(rubric, pairs, "--dry-run") == 0
    assert "dry run: 2 pairs, 12 judge calls" in capsys.readouterr().err
    assert _run(rubric, pairs, "--dry-run", "--grader", "holistic", "--repeats", "3") == 0
    assert "dry run: 2 pairs, 12 judge calls" in capsys.readouterr().err


def test_metrics_on_pairwise_results(
    tmp_path: Path, rubric: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [GOOD, {**GOOD, "id": "p2", "label": "tie"}, {**GOOD, "id": "p3", "label": None}]
    out = tmp_path / "out.jsonl"
    assert _run(rubric, write_pairs(tmp_path / "p.jsonl", rows), "-o", str(out)) == 0
    capsys.readouterr()
    assert main(["metrics", str(out), "--json", "--bootstrap", "50"]) == 0
    data = json.loads(capsys.readouterr().out)
    stats = data["stats"]
    # the fake judge names the first answer every time: every comparison is a tie
    assert stats["labelled"] == 2 and stats["accuracy"] == pytest.approx(0.75)
    assert stats["first_shown_share"] == 1.0 and stats["consistency_rate"] == 0.0
    assert stats["agreement_excluding_ties"] is None
    assert main(["metrics", str(out), "--dataset", "x.jsonl"]) == 1
    assert "--dataset applies to a run directory" in capsys.readouterr().err
    assert main(["metrics", str(tmp_path / "p.jsonl")]) == 1
    assert "this is an input of `rubricjudge grade --pairwise`" in capsys.readouterr().err


def test_report_of_pairwise_results_escapes_everything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = "<script>alert(1)</script>"
    rubric = tmp_path / "r.yaml"
    rubric.write_text(f"- name: x\n  weight: 1\n  requirement: '{hostile}'\n")
    pairs = write_pairs(
        tmp_path / "p.jsonl", [{"id": hostile, "submission_a": hostile, "submission_b": "b"}]
    )
    out = tmp_path / "out.jsonl"
    assert _run(rubric, pairs, "-o", str(out)) == 0
    html = tmp_path / "r.html"
    assert main(["report", str(out), "-o", str(html)]) == 0
    page = html.read_text()
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "won 100.0% of the decisive answers" in page
    assert read_lines(out)[0]["id"] == hostile
    assert main(["report", str(out), "-o", str(html), "--compare", str(out)]) == 1
    assert "--compare and --submissions apply to graded runs" in capsys.readouterr().err
