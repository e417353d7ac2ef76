"""JSON Lines read back as written (issue 23, N2, N3, N13).

U+2028, U+2029 and U+0085 are line breaks to ``str.splitlines()`` but ordinary
characters inside a JSON string; a run directory holding them stays readable.
``grade``'s own output is accepted by ``report`` when an item failed. Bytes on
stdin that are not UTF-8 are reported as such, not as bad JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import EvaluationReport, RubricDataset
from rubricjudge._cli.main import main
from tests.support.chat_server import ChatServer, Reply

ODD = "line\u2028sep\u2029para\u0085next"


def write_dataset(path: Path) -> None:
    header = {"prompt": "Say something", "rubric": [{"requirement": "Is polite", "weight": 1}]}
    rows = [
        header,
        {"id": "odd", "submission": ODD, "ground_truth": ["MET"], "query": ODD},
        {"id": "plain", "submission": "plain", "ground_truth": ["UNMET"]},
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


def test_a_dataset_with_unicode_line_separators_loads(tmp_path: Path) -> None:
    path = tmp_path / "ds.jsonl"
    write_dataset(path)
    assert "\u2028" in path.read_text("utf-8")  # written raw, as our writers do
    ds = RubricDataset.from_file(path)
    assert [it.id for it in ds.items] == ["odd", "plain"]
    assert ds.items[0].submission == ODD and ds.items[0].query == ODD


def test_a_run_with_unicode_line_separators_stays_readable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "ds.jsonl"
    write_dataset(data)
    run = tmp_path / "run"
    assert main(["evaluate", str(data), "--judge", "fake", "--run-dir", str(run)]) == 0
    assert "\u2028" in (run / "dataset.jsonl").read_text("utf-8")
    assert main(["metrics", str(run)]) == 0
    assert main(["report", str(run), "-o", str(tmp_path / "r.html")]) == 0
    assert "not valid JSON" not in capsys.readouterr().err


def test_report_reads_grades_output_when_an_item_failed(
    tmp_path: Path, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text("- name: polite\n  weight: 1\n  requirement: Is polite\n", "utf-8")
    answers = tmp_path / "in.jsonl"
    answers.write_text('{"id": "a", "submission": "ok"}\n{"id": "b", "submission": "BAD"}\n')

    def handler(body: Any) -> Reply | None:
        return Reply.text("garbage") if "BAD" in json.dumps(body) else None

    chat_server.handler = handler
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    graded = tmp_path / "graded.jsonl"
    args = ["grade", str(rubric), str(answers), "-o", str(graded), "--judge", "openai/m"]
    assert main([*args, "--base-url", chat_server.base_url, "--no-cache"]) == 0
    rows = [json.loads(x) for x in graded.read_text("utf-8").splitlines()]
    assert rows[1]["id"] == "b" and rows[1]["score"] is None  # "could not grade", written
    assert main(["report", str(graded), "-o", str(tmp_path / "r.html")]) == 0
    # a file written before score was always written still reads back
    del rows[1]["score"]
    assert EvaluationReport.model_validate(rows[1]).score is None


def test_bytes_that_are_not_utf8_on_stdin_are_named(tmp_path: Path) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text("- name: polite\n  weight: 1\n  requirement: Is polite\n", "utf-8")
    for data in (b'{"submission": "caf\xe9"}\n', b'{"submission": "x"\xff}\n'):
        proc = subprocess.run(
            [sys.executable, "-m", "rubricjudge._cli.main", "grade", str(rubric), "-"]
            + ["--judge", "fake"],
            input=data,
            capture_output=True,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},  # stdin: surrogateescape
            timeout=60,
        )
        err = proc.stderr.decode()
        assert proc.returncode == 1, err
        assert "<stdin>: not UTF-8 text" in err and "not valid JSON" not in err
        assert proc.stdout == b""
