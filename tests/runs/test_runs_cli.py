"""`rubricjudge evaluate` and `rubricjudge metrics`, invoked as the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricjudge._cli.main import main
from tests.support.chat_server import ChatServer


def _evaluate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["evaluate", "example:llm_rubric_microsoft", "--judge", "fake", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_evaluate_resume_and_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = str(tmp_path / "run")
    code, out, _ = _evaluate(capsys, "--run-dir", run, "--max-items", "6", "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["items_graded"] == 6 and summary["judge_calls"] == 6 * 9
    assert (tmp_path / "run" / "dataset.jsonl").is_file()

    code, _, err = _evaluate(capsys, "--run-dir", run, "--max-items", "8")
    assert code == 1 and "already holds a run" in err and "--resume" in err

    code, out, _ = _evaluate(capsys, "--run-dir", run, "--max-items", "8", "--resume", "--json")
    summary = json.loads(out)
    assert code == 0 and summary["items_resumed"] == 6 and summary["judge_calls"] == 8 * 9

    assert main(["metrics", run, "--json", "--bootstrap", "50", "--na-mode", "category"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["items_judged"] == 8 and metrics["na_mode"] == "category"
    keys = [c["key"] for c in metrics["criteria"]]
    assert keys == ["Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8", "Q0"]
    q8 = next(c for c in metrics["criteria"] if c["key"] == "Q8")
    assert q8["kind"] == "nominal" and "N/A" in q8["labels"]
    assert all(len(v) == 2 for v in q8["intervals"].values())

    assert main(["metrics", run]) == 0
    assert "Q2 [ordinal]" in capsys.readouterr().out

    other = tmp_path / "other.json"
    assert (
        main(["evaluate", "example:llm_rubric_microsoft", "--judge", "fake", "--max-items", "1"])
        == 0
    )
    from rubricjudge._datasets._bundled import load_example_dataset

    ds = load_example_dataset("llm_rubric_microsoft")
    ds.items[0].submission += " (edited)"
    ds.to_file(other)
    capsys.readouterr()
    assert main(["metrics", run, "--dataset", str(other)]) == 1
    assert "dataset differs" in capsys.readouterr().err


def test_evaluate_text_summary_shows_each_criterion_s_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _evaluate(capsys, "--run-dir", str(tmp_path / "run"), "--max-items", "4")
    assert code == 0
    lines = out.splitlines()
    start = lines.index("verdicts per criterion (answer=count):")
    # the fake judge answers the first option of every question
    assert lines[start + 1 : start + 3] == ["  Q1: 1=4", "  Q2: 1=4"]
    assert "judge calls: 36 (0 from the response cache)" in out

    code, out, _ = _evaluate(
        capsys, "--run-dir", str(tmp_path / "run"), "--max-items", "5", "--resume"
    )
    assert "judge calls: 45 made over all sessions of this run; in this one 0 replayed" in out


def test_metrics_read_the_ground_truth_of_the_latest_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rubricjudge import Criterion, DataItem, Rubric, RubricDataset

    def write(truth: str) -> str:
        rubric = Rubric([Criterion(name="ok", requirement="is fine")])
        items = [DataItem(submission=f"s{i}", id=f"i{i}", ground_truth=[truth]) for i in range(3)]
        path = tmp_path / "data.json"
        RubricDataset(prompt="p", rubric=rubric, items=items).to_file(path)
        return str(path)

    run = str(tmp_path / "run")
    data = write("UNMET")  # the fake judge says MET: no agreement
    assert main(["evaluate", data, "--judge", "fake", "--run-dir", run]) == 0
    capsys.readouterr()
    assert main(["metrics", run, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["criteria"][0]["metrics"]["accuracy"] == 0.0

    data = write("MET")  # the labels are corrected; the submissions did not change
    assert main(["evaluate", data, "--judge", "fake", "--run-dir", run, "--resume"]) == 0
    capsys.readouterr()
    assert main(["metrics", run, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["criteria"][0]["metrics"]["accuracy"] == 1.0


def test_usage_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _evaluate(capsys, "--resume")
    assert code == 1 and "--resume needs --run-dir" in err
    assert main(["evaluate", str(tmp_path / "missing.json"), "--judge", "fake"]) == 1
    assert "not found" in capsys.readouterr().err
    assert main(["metrics", str(tmp_path)]) == 1
    assert "not a run directory" in capsys.readouterr().err


def test_evaluate_says_how_many_calls_the_response_cache_answered(
    tmp_path: Path,
    chat_server: ChatServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # issue 23: "judge calls: 267 (0 replayed)" when all 267 came from the response cache
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    args = ["--judge", "openai/m", "--base-url", chat_server.base_url, "--max-items", "3"]
    code, out, _ = _evaluate(capsys, *args, "--run-dir", str(tmp_path / "a"))
    assert code == 0 and "judge calls: 27 (0 from the response cache)" in out
    asked = len(chat_server.chat_requests)
    code, out, _ = _evaluate(capsys, *args, "--run-dir", str(tmp_path / "b"))
    assert code == 0 and "judge calls: 27 (27 from the response cache)" in out
    assert len(chat_server.chat_requests) == asked  # none asked again
