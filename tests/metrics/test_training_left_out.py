"""Agreement with people leaves out the items the run's calibration was fitted on, by default.

A calibration has seen the labels of its training items, so counting them flatters
the judge. The run directory records the calibration's training ids; ``metrics``,
``report`` and ``gate`` leave those items out unless told otherwise, and say how many.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricjudge._cli.main import main
from tests.support.calibration_helpers import biased, labelled
from tests.support.chat_server import ChatServer


@pytest.fixture
def calibrated_run(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> Path:
    chat_server.handler = biased
    data = labelled(tmp_path)
    cal = tmp_path / "cal.json"
    base = ["--judge", "openai/test", "--base-url", chat_server.base_url]
    base += ["--verdict-method", "verdict-only"]
    assert main(["calibrate", str(data), "--train", "30", "-o", str(cal), *base]) == 0
    run = tmp_path / "run"
    args = ["evaluate", str(data), "--run-dir", str(run), "--calibration", str(cal), *base]
    assert main(args) == 0
    capsys.readouterr()
    return run


def test_metrics_leave_the_training_items_out_and_say_so(
    calibrated_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["metrics", str(calibrated_run), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["excluded_items"] == 30 and out["items_judged"] == 30

    assert main(["metrics", str(calibrated_run)]) == 0
    text = capsys.readouterr().out
    assert "left out 30 items the run's calibration was fitted on" in text

    assert main(["metrics", str(calibrated_run), "--include-training", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["excluded_items"] == 0 and out["items_judged"] == 60


def test_the_report_leaves_them_out_and_says_how_many(
    calibrated_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    page = tmp_path / "r.html"
    assert main(["report", str(calibrated_run), "-o", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "30 items the calibration was fitted on left out" in html
    assert main(["report", str(calibrated_run), "-o", str(page), "--include-training"]) == 0
    assert "the calibration was fitted on left out" not in page.read_text(encoding="utf-8")


def test_gate_leaves_their_labels_out_of_the_human_estimate(
    calibrated_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gate", str(calibrated_run), str(calibrated_run), "--min-pairs", "2"]) == 0
    out = capsys.readouterr().out
    assert "30 labelled items left out: a run's calibration was fitted on them" in out


def test_a_run_without_a_calibration_leaves_nothing_out(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = biased
    data = labelled(tmp_path, n=20)
    run = tmp_path / "run"
    base = ["--judge", "openai/test", "--base-url", chat_server.base_url]
    assert main(["evaluate", str(data), "--run-dir", str(run), *base]) == 0
    capsys.readouterr()
    assert main(["metrics", str(run), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["excluded_items"] == 0
