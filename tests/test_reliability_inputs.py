"""Regressions from the reliability probe (issue 11): hostile inputs on every path.

A superscript option number, deep nesting, huge integers, bytes that are not UTF-8
and replies built to make a repair slow, sent through the command line, a run and
the scoring server. Each must end in a recorded error or one clean error line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import ConfigError
from rubricjudge._cli.main import main
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._judges._parse import parse_json_reply
from rubricjudge._server._app import create_app
from rubricjudge._server._settings import ServerSettings
from rubricjudge._server._sources import DirectorySource

MULTI = (
    "criteria:\n- name: q\n  weight: 1\n  requirement: How clear is it?\n"
    "  options: [{label: low, value: 0}, {label: mid, value: 0.5}, {label: high, value: 1}]\n"
)
TOKEN = "reliability-token-0123456789"


def _superscript_reply(body: Any) -> Any:
    from tests.support.chat_server import Reply

    return Reply.json({"reason": "x", "option": "²", "answer": "²"})


def test_a_superscript_option_is_recorded_by_grade_and_evaluate(
    chat_server: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = _superscript_reply
    rubric = tmp_path / "r.yaml"
    rubric.write_text(MULTI)
    judge = ["--judge", "openai/t", "--base-url", chat_server.base_url, "--no-cache"]
    main(["grade", str(rubric), "--text", "hello", *judge])  # to stdout: -o keeps what it held
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "ValueError" not in err
    report = json.loads(out)
    assert report.get("score") is None
    assert report["report"][0]["error_category"] == "parse"
    assert "'²'" in report["report"][0]["error"]

    data = tmp_path / "ds.jsonl"
    header = {"prompt": "q", "rubric": {"criteria": [_multi_criterion()]}}
    data.write_text(json.dumps(header) + "\n" + json.dumps({"submission": "a", "id": "i1"}) + "\n")
    code = main(["evaluate", str(data), "--run-dir", str(tmp_path / "run"), "--json", *judge])
    summary = json.loads(capsys.readouterr().out)
    # the item is kept, its error recorded; it has no score, so it failed (exit 1)
    assert code == 1 and summary["items_total"] == 1 and summary["items_unscored"] == 1
    assert summary["errors"] == {"judge:parse": 1}


def _multi_criterion() -> dict[str, Any]:
    return {
        "name": "q",
        "weight": 1,
        "requirement": "How clear is it?",
        "options": [{"label": x, "value": v} for x, v in (("low", 0), ("mid", 0.5), ("high", 1))],
    }


class _Server:
    """The scoring server on a free loopback port (uvicorn in a thread)."""

    def __init__(self, directory: Path, judge: Any, **settings: Any) -> None:
        from tests.support.served import Served

        app = create_app(
            ServerSettings(
                source=DirectorySource(directory),
                grader=CriterionGrader(judge=judge),
                token=TOKEN,
                **settings,
            )
        )
        self.served = Served(app)

    def __enter__(self) -> Any:
        self.served.__enter__()
        self.client = self.served.client(token=TOKEN)
        return self.client

    def __exit__(self, *exc: object) -> None:
        self.client.close()
        self.served.__exit__(*exc)


@pytest.fixture
def rubrics(tmp_path: Path) -> Path:
    d = tmp_path / "rubrics"
    d.mkdir()
    (d / "multi.yaml").write_text(MULTI)
    (d / "shape.yaml").write_text(  # dataknobs: a JSON Schema checks the submission
        "id: shape\nname: Shape\ndescription: d\nversion: 1.0.0\ntarget_type: t\n"
        "pass_threshold: 0.5\ncriteria:\n- id: s\n  name: S\n  description: an object\n"
        "  weight: 1\n  levels:\n  - {id: fail, label: Fail, description: not one, score: 0.0}\n"
        "  - {id: pass, label: Pass, description: an object, score: 1.0}\n"
        "  scoring_method: {type: schema, schema: {type: object}}\n"
    )
    return d


def test_a_superscript_option_is_recorded_by_the_server(rubrics: Path) -> None:
    judge = FakeJudge(default={"reason": "x", "option": "²"})
    with _Server(rubrics, judge) as client:
        r = client.post("/score", json={"rubric": "multi", "submission": "hello"})
    assert r.status_code == 200, r.text
    cr = r.json()["report"]["report"][0]
    assert cr["error_category"] == "parse" and cr.get("selection") is None


def test_hostile_bodies_are_400_and_hostile_submissions_are_graded(rubrics: Path) -> None:
    bodies = {
        "deep": b'{"rubric": "multi", "submission": "x", "id": ' + b"[" * 100_000 + b"]" * 100_000,
        "digits": b'{"rubric": "multi", "submission": "x", "id": ' + b"9" * 5000 + b"}",
    }
    with _Server(rubrics, FakeJudge(), max_body_bytes=1_000_000) as client:
        for name, body in bodies.items():
            r = client.post("/score", content=body, headers={"Content-Type": "application/json"})
            assert r.status_code == 400, (name, r.text)
            assert "request body" in r.json()["error"]
        deep_text = "[" * 100_000 + "]" * 100_000  # a submission string, checked by a schema
        r = client.post("/score", json={"rubric": "shape", "submission": deep_text})
        assert r.status_code == 200, r.text
        cr = r.json()["report"]["report"][0]
        assert cr["selection"]["label"] == "Fail"
        assert "nested more than 64 levels" in json.dumps(cr)


@pytest.mark.parametrize(
    "reply",
    [
        "```" + " \t\n" * 300_000,  # once: regex backtracking, quadratic
        "```json\n" * 100_000,
        "```{" * 200_000,  # a fence per four characters, each a candidate
        "{" * 900_000,
    ],
)
def test_reply_repair_refuses_hostile_replies(reply: str) -> None:
    # no wall-clock assertion: benchmarks/hostile_inputs.py prints the times
    with pytest.raises(ValueError, match="not a JSON object"):
        parse_json_reply(reply)


def test_reply_repair_still_finds_the_object() -> None:
    assert parse_json_reply('say ```json\n{"a": 1,}\n``` more') == {"a": 1}
    assert parse_json_reply('```\n[1]\n``` ```JSON {"b": 2}```') == {"b": 2}
    assert parse_json_reply('```python\nx = 1\n``` then {"c": 3}') == {"c": 3}
    assert parse_json_reply("```" * 500 + '{"d": 4}') == {"d": 4}


@pytest.fixture
def files(tmp_path: Path) -> Iterator[dict[str, Path]]:
    made = {
        "deep": "[" * 100_000 + "]" * 100_000 + "\n",
        "digits": "[" + "9" * 5000 + "]\n",
        "control": '{"submission": "a\tb"}\n',
    }
    out = {}
    for name, text in made.items():
        out[name] = tmp_path / f"{name}.jsonl"
        out[name].write_text(text)
    out["binary"] = tmp_path / "binary.jsonl"
    out["binary"].write_bytes(b'{"submission": "a"}\n\xff\xfe\n')
    yield out


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("deep", "line 1: data is nested more than 64 levels deep"),
        ("digits", "line 1: an integer has more than 4300 digits"),
        ("binary", "not UTF-8 text"),
        ("control", "line 1: not valid JSON: Invalid control character at column 18"),
    ],
)
def test_bad_grade_input_lines_are_one_whole_message(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, said: str
) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text(MULTI)
    assert main(["grade", str(rubric), str(files[name]), "--judge", "fake"]) == 1
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("name", ["deep", "digits", "binary"])
def test_calibration_report_and_train_ids_files_are_clean_errors(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text(MULTI)
    path = str(files[name])
    runs = [
        ["grade", str(rubric), "--text", "a", "--judge", "fake", "--calibration", path],
        ["report", path, "-o", str(tmp_path / "r.html")],
    ]
    for args in runs:
        assert main(args) == 1, args
        err = capsys.readouterr().err
        assert err.startswith("rubricjudge: error:") and path in err and "Traceback" not in err
    from rubricjudge._cli.cmd_calibrate import _read_ids

    with pytest.raises(ConfigError, match="--train-ids"):
        _read_ids(path)
