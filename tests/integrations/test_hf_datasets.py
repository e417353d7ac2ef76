"""Hugging Face ``datasets`` as input (issue 36): save_to_disk, Parquet, Arrow, a Dataset object.

The data is written with the real ``datasets`` library; the CLI reads it through the
column mapping. The judge is ``openai/m`` against the scripted chat server, which
answers the fruit rubric as a careful judge would (tests/support/reward_helpers.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from rubricjudge._cli.main import main
from rubricjudge._errors import ConfigError
from tests.support.chat_server import ChatServer
from tests.support.reward_helpers import fruit_reply, write_rubric

if not os.environ.get("RUBRICJUDGE_REQUIRE_INTEGRATIONS"):
    pytest.importorskip("datasets", reason="needs rubricjudge[hf]")

import datasets  # noqa: E402

from rubricjudge.integrations.hf_datasets import from_hf  # noqa: E402
from rubricjudge.runs import evaluate_sync  # noqa: E402

ROWS = {
    "qid": ["a1", "a2", "a3"],
    "answer": ["apples and bananas", "only apples", "pears"],
    "question": ["Name fruit."] * 3,
    "h_apples": ["MET", "MET", "UNMET"],
    "h_bananas": [True, False, None],  # None: not labelled
}


@pytest.fixture(autouse=True)
def _offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


@pytest.fixture
def judge(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    chat_server.handler = fruit_reply
    return ["--judge", "openai/m", "--base-url", chat_server.base_url]


def _sources(tmp_path: Path) -> dict[str, Path]:
    ds = datasets.Dataset.from_dict(ROWS)
    ds.save_to_disk(str(tmp_path / "saved"))
    ds.to_parquet(str(tmp_path / "answers.parquet"))
    (arrow,) = (tmp_path / "saved").glob("*.arrow")
    return {"saved": tmp_path / "saved", "parquet": tmp_path / "answers.parquet", "arrow": arrow}


@pytest.mark.parametrize("kind", ["saved", "parquet", "arrow"])
def test_evaluate_then_metrics_read_a_hugging_face_dataset(
    kind: str, tmp_path: Path, judge: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    source = _sources(tmp_path)[kind]
    rubric = str(write_rubric(tmp_path))
    run = str(tmp_path / "run")
    argv = ["evaluate", str(source), "--rubric", rubric, *judge, "--run-dir", run, "--json"]
    mapping = ["--submission-column", "answer", "--id-column", "qid", "--query-column", "question"]
    labels = ["--label-columns", "apples=h_apples,bananas=h_bananas"]
    assert main([*argv, *mapping, *labels]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["items_graded"] == 3 and summary["items_failed"] == 0
    lines = (tmp_path / "run" / "dataset.jsonl").read_text().splitlines()
    copy = [json.loads(line) for line in lines]
    items = [row for row in copy if "submission" in row]
    assert [row["id"] for row in items] == ["a1", "a2", "a3"]

    assert main(["metrics", run, "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    by_key = {c["key"]: c for c in metrics["criteria"]}
    # apples: 3 labelled, all agree; bananas: row a3 unlabelled, so 2
    assert by_key["apples"]["metrics"]["accuracy"] == 1.0
    assert by_key["bananas"]["metrics"]["accuracy"] == 1.0


def test_grade_reads_parquet_rows_with_their_ids(
    tmp_path: Path, judge: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    parquet = _sources(tmp_path)["parquet"]
    rubric = str(write_rubric(tmp_path))
    argv = ["grade", rubric, str(parquet), *judge, "--submission-column", "answer"]
    assert main([*argv, "--id-column", "qid"]) == 0
    reports = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["id"] for r in reports] == ["a1", "a2", "a3"]
    assert [r["score"] for r in reports] == [1.0, 0.5, 0.0]


def test_a_dataset_object_in_python(tmp_path: Path, chat_server: ChatServer) -> None:
    from rubricjudge import CriterionGrader

    both = {"train": datasets.Dataset.from_dict(ROWS), "test": datasets.Dataset.from_dict(ROWS)}
    ds = from_hf(
        datasets.DatasetDict(both),
        write_rubric(tmp_path),
        split="test",
        submission_column="answer",
        label_columns=["h_apples", "h_bananas"],
    )
    assert [it.id for it in ds.items] == ["0", "1", "2"]
    assert [it.ground_truth for it in ds.items] == [
        ["MET", "MET"],
        ["MET", "UNMET"],
        ["UNMET", None],
    ]
    chat_server.handler = fruit_reply
    options = {"base_url": chat_server.base_url, "api_key": "k"}
    result = evaluate_sync(ds, CriterionGrader(judge="openai/m", judge_options=options))
    assert [o.score for o in result.outcomes] == [1.0, 0.5, 0.0]


def test_missing_columns_and_splits_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = _sources(tmp_path)["saved"]
    rubric = str(write_rubric(tmp_path))
    code = main(["evaluate", str(saved), "--rubric", rubric, "--judge", "fake"])
    err = capsys.readouterr().err
    assert code == 1 and "has no column 'submission' (--submission-column)" in err
    assert "its columns are: qid, answer, question, h_apples, h_bananas" in err

    argv = ["evaluate", str(saved), "--rubric", rubric, "--submission-column", "answer"]
    code = main([*argv, "--label-columns", "h_apples", "--judge", "fake"])
    err = capsys.readouterr().err
    assert code == 1 and "--label-columns gives 1 columns for the rubric's 2 criteria" in err

    code = main(
        [
            "calibrate",
            str(saved),
            "--rubric",
            rubric,
            "--submission-column",
            "answer",
            "--label-columns",
            "apples=nope",
            "--train",
            "2",
            "-o",
            str(tmp_path / "c.json"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1 and "has no column 'nope' (--label-columns)" in err

    code = main(["evaluate", str(saved), "--judge", "fake"])
    assert code == 1 and "holds no rubric: give --rubric FILE" in capsys.readouterr().err

    both = datasets.DatasetDict(
        {"train": datasets.Dataset.from_dict(ROWS)} | {"test": datasets.Dataset.from_dict(ROWS)}
    )
    both.save_to_disk(str(tmp_path / "dd"))
    with pytest.raises(ConfigError, match="has the splits train, test; choose one with --split"):
        from_hf(str(tmp_path / "dd"), rubric, submission_column="answer")
    with pytest.raises(ConfigError, match="no split 'dev'"):
        from_hf(str(tmp_path / "dd"), rubric, submission_column="answer", split="dev")

    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet")
    with pytest.raises(ConfigError, match="not a Hugging Face dataset"):
        from_hf(bad, rubric)


def test_a_bad_label_names_the_row(tmp_path: Path) -> None:
    rows: dict[str, Any] = dict(ROWS, h_apples=["MET", "maybe", "UNMET"])
    ds = datasets.Dataset.from_dict(rows)
    with pytest.raises(ConfigError, match="row 1"):
        from_hf(
            ds,
            write_rubric(tmp_path),
            submission_column="answer",
            label_columns={"apples": "h_apples"},
        )
