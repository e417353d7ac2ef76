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


def test_pairwise_that_only_ties_says_so_and_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.pairwise_helpers import RUBRIC_YAML, write_pairs

    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC_YAML)
    rows = [{"id": f"p{i}", "submission_a": "Paris.", "submission_b": "Lyon."} for i in range(3)]
    pairs = write_pairs(tmp_path / "p.jsonl", rows)
    # the fake judge names the first answer shown in both orders: every pair is a tie
    assert main(["grade", str(rubric), str(pairs), "--pairwise", "--judge", "fake"]) == 0
    err = capsys.readouterr().err
    assert "warning: every one of the 3 compared pairs is a tie" in err
    assert "Grade each answer on its own instead" in err


def test_the_local_judge_s_ties_are_named_from_the_first_pair() -> None:
    from rubricjudge._cli._grade_compare import ties_warning

    said = ties_warning(["local"], 1, {"tie": 1})
    assert said is not None and "the local judge cannot compare" in said
    assert ties_warning(["fake"], 2, {"tie": 2}) is None  # two ties can be the truth
    assert ties_warning(["local"], 2, {"tie": 1, "a": 1}) is None
    assert ties_warning(["local"], 0, {}) is None


def test_the_pass_rate_interval_stays_within_0_and_1() -> None:
    import numpy as np

    from rubricjudge._metrics._estimates import estimates, wilson

    judged = np.array([0.9, 0.9] + [0.1] * 8)
    human = np.array([0.9, 0.1, 0.1, 0.1] + [np.nan] * 6)
    out = estimates(human, judged, np.full(10, 0.5), 0.95)
    for kind, e in out["pass_rate"].items():
        assert 0.0 <= e.low <= e.estimate <= e.high <= 1.0, kind
    naive = out["pass_rate"]["naive"]
    assert naive.estimate == 0.2 and naive.low > 0.0 and "Wilson" in naive.method
    # a normal interval gave 0.2 +- 0.25 here: below 0
    assert naive.low == pytest.approx(wilson(2, 10, 0.95)[0])
    assert wilson(2, 10, 0.95) == pytest.approx((0.0567, 0.5098), abs=1e-4)
    assert wilson(0, 5, 0.95)[0] == 0.0 and wilson(5, 5, 0.95)[1] == 1.0
    # the mean score keeps its own interval
    assert "Wilson" not in out["mean_score"]["naive"].method


def test_gate_reads_both_runs_labels_from_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from tests.support.calibration_helpers import labelled

    data = labelled(tmp_path, n=12)
    blank = tmp_path / "blank.json"
    raw = json.loads(data.read_text())
    for item in raw["items"]:
        item.pop("ground_truth")
    blank.write_text(json.dumps(raw))
    base, new = tmp_path / "base", tmp_path / "new"
    # the baseline ran before anyone labelled: its copy of the dataset has no labels
    assert main(["evaluate", str(blank), "--judge", "fake", "--run-dir", str(base)]) == 0
    assert main(["evaluate", str(data), "--judge", "fake", "--run-dir", str(new)]) == 0
    capsys.readouterr()
    assert main(["gate", str(base), str(new)]) == 0
    assert "only the new run has human labels" in capsys.readouterr().out
    assert main(["gate", str(base), str(new), "--dataset", str(data)]) == 0
    out = capsys.readouterr().out
    assert "human labels: " in out and "only the" not in out
    assert "every one of the 12 items labelled in both runs" in out

    other = tmp_path / "other.json"
    raw["items"][0]["submission"] += " (edited)"
    other.write_text(json.dumps(raw))
    assert main(["gate", str(base), str(new), "--dataset", str(other)]) == 2
    assert "--dataset differs from the one BASELINE" in capsys.readouterr().err
    jsonl = tmp_path / "g.jsonl"
    jsonl.write_text("")
    assert main(["gate", str(jsonl), str(new), "--dataset", str(data)]) == 2
    assert "--dataset applies to run directories" in capsys.readouterr().err


async def test_without_a_terminal_a_plain_progress_line_comes_every_few_seconds() -> None:
    import asyncio
    import io

    from rubricjudge._runs._progress import PLAIN_EVERY, Progress, ticking

    assert PLAIN_EVERY == 10.0
    log = io.StringIO()
    bar = Progress(40, plain=log, every=0.05)
    bar.watch(lambda: (96, 1))
    async with ticking(bar):
        bar.advance(count=12)
        await asyncio.sleep(0.18)
    lines = log.getvalue().splitlines()
    assert 2 <= len(lines) <= 4
    assert lines[0].startswith("progress: 12/40 items, judgments=96 errors=1, ")
    assert lines[0].endswith("s elapsed")


def test_make_progress_chooses_plain_lines_when_stderr_is_no_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io
    import sys

    from rubricjudge._runs._progress import make_progress

    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    bar = make_progress(None, 3)
    assert bar._plain is log and bar._bar is None
    assert make_progress(False, 3)._plain is None  # asked for nothing: nothing


def test_the_label_page_says_which_answer_the_reason_was_written_for() -> None:
    from rubricjudge import Criterion, CriterionVerdict
    from rubricjudge._label._judged import _judged
    from rubricjudge.reports import CalibrationRecord, CriterionReport

    met, unmet = CriterionVerdict.MET, CriterionVerdict.UNMET
    changed = CriterionReport(
        criterion=Criterion(name="c", weight=1, requirement="States A"),
        verdict=unmet,
        reason="It never states A.",
        probabilities={"MET": 0.62, "UNMET": 0.38},
        confidence=0.62,
        calibration=CalibrationRecord(raw_verdict=met, p_calibrated=0.3, changed=True),
    )
    got = _judged(changed).to_data()
    # the judge's own answer (what the order asks about), and the one the reason is about
    assert got["answer"] == "MET" and got["final"] == "UNMET"
    assert got["reason"] == "It never states A."
    kept = changed.model_copy(update={"verdict": met, "calibration": None})
    assert _judged(kept).to_data()["final"] is None


def test_create_template_writes_the_native_format_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rubricjudge import Rubric

    out = tmp_path / "t.yaml"
    assert main(["create-template", "demo", "--format", "native", "-o", str(out)]) == 0
    assert "native template" in capsys.readouterr().err
    assert out.read_text().startswith("format: rubricjudge/1\n")
    rubric = Rubric.from_file(out)
    weights = [c.weight for c in rubric.criteria]
    assert len(weights) == 4 and min(weights) < 0  # a penalty among them
    assert main(["validate", str(out)]) == 0
    assert "(native, 4 criteria)" in capsys.readouterr().out
    assert main(["create-template", "demo", "--format", "native", "--scale-max", "5"]) == 1
    assert "apply to --format openrubricrl" in capsys.readouterr().err
    assert main(["create-template", "demo"]) == 0  # OpenRubricRL stays the default
    assert "scale:" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["grade", "evaluate"])
def test_grader_has_a_help_line(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "per-criterion: one question per criterion" in text and "holistic: one" in text
