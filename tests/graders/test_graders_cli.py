"""``rubricjudge grade``: input, ordered incremental output, summary, dry run, servers."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import Criterion, Rubric
from rubricjudge._cli.cmd_grade import _Source, _write_reports
from rubricjudge._cli.main import main
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._fake import FakeJudge
from tests.support.chat_server import ChatServer, Reply

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
        {"id": "x1", "submission": "Rayleigh scattering.", "query": "Why is the sky blue?"},
        {"submission": {"thinking": "hmm", "output": "It reflects the ocean."}},
        {"id": 7, "submission": "Blue light scatters more.", "reference": "Rayleigh..."},
    ]
    answers.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    return rubric, answers


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_grade_writes_one_report_per_line_in_order(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric, answers = files
    out = tmp_path / "out.jsonl"
    args = ["grade", str(rubric), str(answers), "--judge", "fake", "-o", str(out)]
    assert main([*args, "--evidence", "off"]) == 0
    reports = read_jsonl(out)
    assert [r["id"] for r in reports] == ["x1", "2", "7"]  # a missing id is the line number
    assert all(r["score"] == 0.5 and len(r["report"]) == 2 for r in reports)  # MET, MET
    assert all(r["judge_calls"] == 2 for r in reports)
    err = capsys.readouterr().err
    assert "graded 3 items" in err and "judge calls: 6" in err and "errors: 0" in err


def test_grade_reads_stdin_and_text(
    files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric, answers = files
    monkeypatch.setattr(sys, "stdin", io.StringIO(answers.read_text(encoding="utf-8")))
    assert main(["grade", str(rubric), "-", "--judge", "fake"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3
    assert main(["grade", str(rubric), "--text", "Rayleigh", "--judge", "fake"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["id"] == "1"


def test_grade_one_shot_and_holistic(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    rubric, answers = files
    for grader, calls in (("one-shot", 1), ("holistic", 1)):
        assert (
            main(["grade", str(rubric), str(answers), "--judge", "fake", "--grader", grader]) == 0
        )
        lines = capsys.readouterr().out.splitlines()
        assert [json.loads(x)["judge_calls"] for x in lines] == [calls] * 3


def test_ensemble_from_the_command_line(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    rubric, answers = files
    assert main(["grade", str(rubric), str(answers), "--judges", "fake,fake=2", "fake"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    votes = first["report"][0]["votes"]
    assert [(v["judge_id"], v["weight"]) for v in votes] == [
        ("fake", 1.0),
        ("fake#2", 2.0),
        ("fake#3", 1.0),
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"submission": "ok"}\n{not json}\n', "line 2: not valid JSON"),
        ('{"submission": "ok"}\n\n{"text": "x"}\n', "line 3: missing 'submission'"),
        ('{"submission": {"answer": "x"}}\n', "line 1: submission has unknown key 'answer'"),
        ('["a"]\n', "line 1: expected a JSON object"),
        ('{"submission": "x", "query": 3}\n', "line 1: 'query' is int"),
    ],
)
def test_input_errors_name_the_line(
    files: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str,
    message: str,
) -> None:
    rubric, _ = files
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content, encoding="utf-8")
    assert main(["grade", str(rubric), str(bad), "--judge", "fake"]) == 1
    err = capsys.readouterr().err
    assert f"bad.jsonl {message}" in err and err.count("\n") == 1


def test_usage_errors(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    rubric, answers = files
    assert main(["grade", str(rubric), "--judge", "fake"]) == 1
    assert main(["grade", str(rubric), str(answers), "--text", "x"]) == 1
    assert main(["grade", str(rubric), str(answers), "--judge", "fake", "--judges", "fake"]) == 1
    assert main(["grade", "missing.yaml", str(answers)]) == 1
    assert "not found" in capsys.readouterr().err


def test_dry_run_calls_nothing(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    rubric, answers = files
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        args = ["grade", str(rubric), str(answers), "--judge", "openai/test-model"]
        assert main([*args, "--base-url", url, "--dry-run"]) == 0
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "6 judge calls" in captured.err and "about unknown" in captured.err
    assert main(["grade", str(rubric), str(answers), "--judge", "fake", "--dry-run"]) == 0
    assert "$0.0000" in capsys.readouterr().err


async def test_results_are_written_in_order_as_soon_as_possible(tmp_path: Path) -> None:
    """Item 2 can only finish after item 0's line was written: the writer must not wait."""
    first_line = asyncio.Event()

    class Recorder(io.StringIO):
        def write(self, s: str) -> int:
            first_line.set()
            return super().write(s)

    async def reply(req: JudgeRequest) -> dict[str, str]:
        if req.tags["item"] == "2":
            await first_line.wait()
        return {"reason": "", "verdict": "MET"}

    class Waiting(FakeJudge):
        async def judge(self, request: JudgeRequest) -> Any:
            await reply(request)
            return await super().judge(request)

    rubric = Rubric([Criterion(requirement="r")])
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"id": str(i), "submission": "x"}) + "\n" for i in range(4)))
    args = argparse.Namespace(
        text=None, query=None, input=str(path), run_dir=None, resume=False, force=False
    )
    args.concurrency = 4
    out = Recorder()
    grader = CriterionGrader(Waiting())
    tally = await asyncio.wait_for(_write_reports(args, rubric, grader, _Source(args), out), 30)
    assert [json.loads(x)["id"] for x in out.getvalue().splitlines()] == ["0", "1", "2", "3"]
    assert tally.items == 4 and tally.not_graded == 0


def grade_cli(files: tuple[Path, Path], out: Path, server: ChatServer, *extra: str) -> int:
    rubric, answers = files
    args = ["grade", str(rubric), str(answers), "-o", str(out), "--base-url", server.base_url]
    return main([*args, *extra])


def grade_stdout(
    files: tuple[Path, Path], server: ChatServer, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, list[dict[str, Any]], str]:
    """Grade to stdout, where the reports of a run that graded nothing still go (-o keeps
    what it held then); returns the exit code, the reports and stderr."""
    rubric, answers = files
    code = main(["grade", str(rubric), str(answers), "--base-url", server.base_url, *extra])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def by_text(body: Any) -> Reply:
    """MET for the Rayleigh criterion when the submission says Rayleigh, and so on."""
    user = body["messages"][1]["content"]
    said = "Rayleigh" in user.split("</submission-")[0].rsplit("<submission-", 1)[1]
    if body["response_format"]["json_schema"]["name"] == "holistic_score":
        return Reply.json({"reason": "r", "score": 90 if said else 10})
    if body["response_format"]["json_schema"]["name"] == "rubric_judgment":
        first = "MET" if said else "UNMET"
        return Reply.json({"1": {"reason": "r", "verdict": first}})  # 2 missing: re-asked
    asked = user.split("</submission-")[-1]
    return Reply.json(
        {"reason": "r", "verdict": "MET" if ("Rayleigh" in asked) == said else "UNMET"}
    )


@pytest.mark.parametrize(
    ("grader", "calls"), [("per-criterion", 2), ("one-shot", 2), ("holistic", 1)]
)
def test_every_grader_against_the_chat_server(
    files: tuple[Path, Path],
    tmp_path: Path,
    chat_server: ChatServer,
    capsys: pytest.CaptureFixture[str],
    grader: str,
    calls: int,
) -> None:
    chat_server.handler = by_text
    out = tmp_path / "out.jsonl"
    args = ("--judge", "openai/test", "--grader", grader, "--evidence", "off")
    assert grade_cli(files, out, chat_server, *args) == 0
    reports = read_jsonl(out)
    assert [r["id"] for r in reports] == ["x1", "2", "7"]
    assert [r["judge_calls"] for r in reports] == [calls] * 3
    assert len(chat_server.chat_requests) == 3 * calls
    if grader == "holistic":
        assert [r["llm_raw_score"] for r in reports] == [90, 10, 10]
    else:
        verdicts = [[c["verdict"] for c in r["report"]] for r in reports]
        assert verdicts == [["MET", "UNMET"], ["UNMET", "MET"], ["UNMET", "MET"]]
    assert all(r["token_usage"]["prompt_tokens"] == 10 * calls for r in reports)
    err = capsys.readouterr().err
    assert f"judge calls: {3 * calls}" in err and "items not graded: 0" in err


def test_an_ensemble_of_two_server_models_from_the_command_line(
    files: tuple[Path, Path], tmp_path: Path, chat_server: ChatServer
) -> None:
    chat_server.handler = lambda body: Reply.json(
        {"reason": body["model"], "verdict": "MET" if body["model"] == "a" else "UNMET"}
    )
    out = tmp_path / "out.jsonl"
    assert grade_cli(files, out, chat_server, "--judges", "openai/a=2,openai/b") == 0
    first = read_jsonl(out)[0]["report"][0]
    assert first["verdict"] == "MET"  # the weights count: 2 for MET, 1 against
    votes = [(v["judge_id"], v["weight"], v["verdict"]) for v in first["votes"]]
    assert votes == [("openai/a", 2.0, "MET"), ("openai/b", 1.0, "UNMET")]
    assert {r.json["model"] for r in chat_server.chat_requests} == {"a", "b"}


def test_server_errors_are_recorded_and_summarised(
    files: tuple[Path, Path],
    tmp_path: Path,
    chat_server: ChatServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    chat_server.handler = lambda body: Reply.server_error(headers={"Retry-After": "0"})
    # nothing could be graded: exit 1, the failures recorded in the reports
    code, reports, err = grade_stdout(files, chat_server, capsys, "--judge", "openai/test")
    assert code == 1
    assert all(r.get("score") is None for r in reports)
    crits = [c for r in reports for c in r["report"]]
    assert {c["error_category"] for c in crits} == {"server"}
    assert all("after 5 attempts" in c["error"] for c in crits)  # 4 retries by default
    assert len(chat_server.chat_requests) == 6 * 5
    assert "errors: 6 criteria; items not graded: 3" in err
    assert "  x1: no criterion could be graded; first error: server" in err  # why, shown
    out = tmp_path / "out.jsonl"
    assert grade_cli(files, out, chat_server, "--judge", "openai/test") == 1
    assert not out.exists()  # -o keeps what it held: here, nothing


def test_replies_that_are_not_json_are_recorded_as_parse_errors(
    files: tuple[Path, Path], chat_server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = lambda body: Reply.text("MET, clearly.")
    for grader in ("per-criterion", "one-shot", "holistic"):
        code, reports, _ = grade_stdout(
            files, chat_server, capsys, "--judge", "openai/t", "--grader", grader
        )
        assert code == 1
        assert all(r.get("score") is None for r in reports)
        if grader == "holistic":
            assert all(r["error"].startswith("no score: parse:") for r in reports)
        else:
            assert {c["error_category"] for r in reports for c in r["report"]} == {"parse"}


def test_progress_bar_draws_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from rubricjudge._runs._progress import make_progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, plain = Tty(), io.StringIO()
    for stream in (tty, plain):
        monkeypatch.setattr(sys, "stderr", stream)
        bar = make_progress(None, 2, 0)
        bar.watch(lambda: (5, 1))
        bar.status("waiting for the judge…")
        bar.advance()
        bar.advance(failed=True)
        bar.close()
    drawn = tty.getvalue()
    assert "2/2" in drawn and "judgments=5" in drawn and "errors=1" in drawn
    assert "waiting for the judge" in drawn and drawn.endswith("\n")
    assert plain.getvalue() == ""
