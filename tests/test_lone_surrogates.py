r"""A lone UTF-16 surrogate in an input (``"\ud800"``: valid JSON, half of an emoji).

Every reader replaces it with U+FFFD and says so once per file, naming the first line;
nothing after the reader (the run store, the JSON output, the HTML report, the label
page) then meets a character that UTF-8 cannot hold. Labelling writes the item back
with the escape it had, so only its labels change.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from rubricjudge import RubricDataset
from rubricjudge._cli.main import main
from rubricjudge._runs._store import DB_NAME
from tests.support.chat_server import ChatServer, Reply
from tests.support.label_helpers import LabelServer, rubric

HALF = "\ud83d"  # the first half of 😀, as JavaScript's slice leaves it
RUBRIC = """\
- name: cause
  weight: 10
  requirement: Names Rayleigh scattering as the cause
"""


def _answers(tmp_path: Path) -> tuple[Path, Path]:
    rubric_file = tmp_path / "rubric.yaml"
    rubric_file.write_text(RUBRIC, encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    rows = [
        {"id": "a", "submission": "Rayleigh scattering."},
        {"id": "b", "submission": f"Rayleigh {HALF}"},  # json.dumps writes the escape
        {"id": "c", "submission": f"{HALF} again", "query": f"why {HALF}"},
        {"id": "d", "submission": "a whole emoji \U0001f600 stays"},
    ]
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert "\\ud83d" in answers.read_text(encoding="utf-8")
    return rubric_file, answers


def _note_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if "lone UTF-16 surrogate" in line]


def test_grade_output_and_run_dir_take_the_line_with_a_note_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric_file, answers = _answers(tmp_path)
    out, run = tmp_path / "out.jsonl", tmp_path / "run"
    args = ["grade", str(rubric_file), str(answers), "--judge", "fake", "--evidence", "off"]
    assert main([*args, "-o", str(out), "--run-dir", str(run)]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    notes = _note_lines(err)
    assert len(notes) == 1, err  # once per file, though two lines hold one
    assert f"{answers} line 2:" in notes[0] and "U+FFFD" in notes[0]
    reports = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in reports] == ["a", "b", "c", "d"]
    assert all(r["score"] is not None for r in reports)
    db = sqlite3.connect(run / DB_NAME)
    try:
        statuses = dict(db.execute("SELECT item_key, status FROM items").fetchall())
    finally:
        db.close()
    assert set(statuses) == {"a", "b", "c", "d"}


def test_evaluate_run_dir_and_its_html_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ds = RubricDataset(prompt="Why is the sky blue?", rubric=rubric())
    ds.add_item(submission="fine", id="ok")
    ds.add_item(submission="cut", id="cut")
    path = tmp_path / "data.jsonl"
    ds.to_file(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[2] = lines[2].replace('"cut"', '"cut \\udc00 here"', 1)  # a lone low half
    path.write_text("\n".join(lines), encoding="utf-8")
    run = tmp_path / "run"
    code = main(["evaluate", str(path), "--judge", "fake", "--run-dir", str(run)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"{path} line 3:" in _note_lines(err)[0]
    html = tmp_path / "report.html"
    assert main(["report", str(run), "-o", str(html)]) == 0, capsys.readouterr().err
    assert "cut \ufffd here" in html.read_text(encoding="utf-8")


def test_yaml_and_json_datasets_are_read_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ds = RubricDataset(prompt="Why?", rubric=rubric())
    ds.add_item(submission="PLACEHOLDER", id="x")
    for suffix in ("yaml", "json"):
        path = tmp_path / f"data.{suffix}"
        ds.to_file(path)
        cut = "half \\ud800 of it"
        quoted = f'"{cut}"' if suffix == "yaml" else cut  # a YAML escape needs double quotes
        text = path.read_text(encoding="utf-8").replace("PLACEHOLDER", quoted)
        path.write_text(text, encoding="utf-8")
        loaded = RubricDataset.from_file(path)
        assert loaded.items[0].submission == "half \ufffd of it"
        err = capsys.readouterr().err
        line = next(n for n, t in enumerate(text.split("\n"), 1) if "\\ud800" in t)
        assert f"{path} line {line}:" in _note_lines(err)[0]


def test_a_pair_of_escapes_is_one_character_and_no_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ds = RubricDataset(prompt="Why?", rubric=rubric())
    ds.add_item(submission="smile \U0001f600", id="x")
    path = tmp_path / "data.json"
    path.write_text(json.dumps(ds.to_dict(), ensure_ascii=True), encoding="utf-8")
    assert "\\ud83d\\ude00" in path.read_text(encoding="utf-8")
    assert RubricDataset.from_file(path).items[0].submission == "smile \U0001f600"
    assert _note_lines(capsys.readouterr().err) == []


def test_the_label_page_shows_and_labels_the_item_and_keeps_its_escape(tmp_path: Path) -> None:
    ds = RubricDataset(prompt="Why is the sky blue?", rubric=rubric())
    ds.add_item(submission="whole", id="item-0")
    ds.add_item(submission="MARK", id="item-1")
    path = tmp_path / "data.jsonl"
    ds.to_file(path)
    path.write_text(
        path.read_text(encoding="utf-8").replace("MARK", "cut \\ud83d"), encoding="utf-8"
    )
    with LabelServer(path, "--labeller", "ana") as server, server.client() as http:
        item = http.get("/api/items/item-1")
        assert item.status_code == 200, item.text
        assert item.json()["submission"] == "cut \ufffd"
        saved = http.post("/api/labels", json={"item_id": "item-1", "labels": {"cause": "MET"}})
        assert saved.status_code == 200, saved.text
    text = path.read_text(encoding="utf-8")
    assert "cut \\ud83d" in text and "\ufffd" not in text  # the user's escape, as it was
    assert RubricDataset.from_file(path).items[1].ground_truth is not None


def test_a_judge_reply_with_half_an_emoji_is_stored_and_written(
    tmp_path: Path, chat_server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric_file, answers = _answers(tmp_path)
    chat_server.handler = lambda body: Reply.json({"reason": f"cut {HALF}", "verdict": "MET"})
    out, run = tmp_path / "out.jsonl", tmp_path / "run"
    args = ["grade", str(rubric_file), str(answers), "--judge", "openai/test-model"]
    args += ["--base-url", chat_server.base_url, "--evidence", "off"]
    code = main([*args, "-o", str(out), "--run-dir", str(run)])
    err = capsys.readouterr().err
    assert code == 0, err
    reports = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert all(r["score"] == 1.0 for r in reports), err
    assert reports[0]["report"][0]["reason"] == "cut \ufffd"


def test_tool_call_arguments_holding_half_an_emoji(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the arguments are JSON text inside the JSON line: their escapes decode only there
    rubric_file, _ = _answers(tmp_path)
    arguments = json.dumps({"q": f"cut {HALF}"})  # '{"q": "cut \\ud83d"}'
    call = {"id": "c1", "type": "function", "function": {"name": "look", "arguments": arguments}}
    messages = [
        {"role": "user", "content": "Why is the sky blue?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "Rayleigh"},
        {"role": "assistant", "content": "Rayleigh scattering."},
    ]
    answers = tmp_path / "conv.jsonl"
    answers.write_text(json.dumps({"id": "t", "messages": messages}) + "\n", encoding="utf-8")
    out, run, html = tmp_path / "out.jsonl", tmp_path / "run", tmp_path / "r.html"
    args = ["grade", str(rubric_file), str(answers), "--judge", "fake", "--evidence", "off"]
    code = main([*args, "-o", str(out), "--run-dir", str(run)])
    err = capsys.readouterr().err
    assert code == 0 and "Traceback" not in err, err
    assert json.loads(out.read_text(encoding="utf-8"))["score"] is not None
    assert main(["report", str(out), "--submissions", str(answers), "-o", str(html)]) == 0
    assert "cut \ufffd" in html.read_text(encoding="utf-8")


def test_an_item_built_in_python_is_stored_written_and_reported(tmp_path: Path) -> None:
    from rubricjudge._graders._criterion import CriterionGrader
    from rubricjudge._judges._fake import FakeJudge
    from rubricjudge._runs._evaluate import evaluate_sync

    ds = RubricDataset(prompt="Why?", rubric=rubric())
    ds.add_item(submission=f"cut {HALF}", id=f"id {HALF}", query=f"q {HALF}")
    assert ds.items[0].submission == "cut \ufffd" and ds.items[0].id == "id \ufffd"
    result = evaluate_sync(ds, CriterionGrader(FakeJudge()), run_dir=tmp_path / "run")
    assert result.summary.items_graded == 1
    copy = RubricDataset.from_file(tmp_path / "run" / "dataset.jsonl")
    assert copy.items[0].query == "q \ufffd"


@pytest.mark.parametrize(
    "body",
    [
        b'{"a": "\\ud83d"}',  # the escape
        '{"a": "\ud83d"}'.encode("utf-8", "surrogatepass"),  # json.loads reads it as one
        '{"a": "\\ud83d"}'.encode("utf-16"),  # json.loads detects UTF-16 too
        '{"a": "\\ud83d"}'.encode("utf-32-le"),
    ],
)
def test_the_quick_check_before_walking_a_reply_misses_no_lone_surrogate(body: bytes) -> None:
    """Replies skip the walk over their strings when no surrogate can be in them (issue 39)."""
    from rubricjudge._judges._http import HTTPReply
    from rubricjudge._limits import may_hold_surrogates, without_surrogates

    assert without_surrogates(json.loads(body))[1] == 1  # each case really holds one
    assert may_hold_surrogates(body)
    assert HTTPReply(200, {}, body).json() == {"a": "\ufffd"}
    assert not may_hold_surrogates(b'{"a": "caf\\u00e9"}')  # an escape, but of no surrogate
    assert may_hold_surrogates('{"a": "\\udc00"}') and may_hold_surrogates('{"a": "\udc00"}')
    assert not may_hold_surrogates('{"a": "café"}')
