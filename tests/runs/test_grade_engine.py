"""``rubricjudge grade`` on the runs engine: streamed, bounded, resumable, concurrent.

The judges are the real OpenAI backend talking to the scripted chat server, or the
fake judge through the registry; a killed ``grade`` is a real subprocess.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import Criterion, CriterionGrader, Rubric
from rubricjudge._cli.cmd_grade import _Source, _write_reports
from rubricjudge._cli.main import main
from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._fake import FakeJudge, fake_reply_for_schema
from tests.support.chat_server import ChatServer, Reply, schema_of

ITEM = re.compile(r"SUBMISSION-(\d+)")


def _rubric(path: Path, criteria: int = 1) -> Path:
    rows = [
        f"- name: c{j}\n  weight: 1\n  requirement: REQUIREMENT-{j} holds.\n"
        for j in range(criteria)
    ]
    path.write_text("".join(rows))
    return path


def _input(path: Path, n: int) -> Path:
    with path.open("w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"it{i}", "submission": f"SUBMISSION-{i} text"}) + "\n")
    return path


def _item(body: dict[str, Any]) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    m = ITEM.search(user)
    assert m is not None, user
    return f"it{m.group(1)}"


def _slow(delay: float) -> Any:
    return lambda body: Reply.json(fake_reply_for_schema(schema_of(body) or {}), delay=delay)


def test_the_concurrency_asked_for_is_the_concurrency_given(
    tmp_path: Path, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--concurrency 64 once kept 32 calls in flight: the provider's default limit bound."""
    monkeypatch.setenv("RUBRICJUDGE_CACHE_DIR", str(tmp_path / "cache"))
    chat_server.handler = _slow(0.2)
    rubric, answers = _rubric(tmp_path / "r.yaml"), _input(tmp_path / "in.jsonl", 256)
    out = tmp_path / "out.jsonl"
    args = ["grade", str(rubric), str(answers), "-o", str(out), "--judge", "openai/test"]
    args += ["--base-url", chat_server.base_url, "--concurrency", "64"]
    assert main(args) == 0
    assert len(out.read_text().splitlines()) == 256
    assert 32 < chat_server.max_in_flight <= 64


async def test_a_long_input_is_streamed_through_a_fixed_pool(tmp_path: Path) -> None:
    """3,000 lines: a handful of tasks at any moment, lines in input order."""
    peak = 0

    class Counting(FakeJudge):
        async def judge(self, request: JudgeRequest) -> Any:
            nonlocal peak
            peak = max(peak, len(asyncio.all_tasks()))
            await asyncio.sleep(0.0005 * (hash(request.user) % 3))  # finish out of order
            return await super().judge(request)

    path = _input(tmp_path / "in.jsonl", 3000)
    ns = argparse.Namespace(text=None, query=None, input=str(path), run_dir=None)
    ns.resume = ns.force = False
    ns.concurrency = 4

    class Lines:
        def __init__(self) -> None:
            self.ids: list[str] = []

        def write(self, s: str) -> int:
            self.ids.append(json.loads(s)["id"])
            return len(s)

        def flush(self) -> None:
            pass

    out = Lines()
    grader = CriterionGrader(Counting(), concurrency=4)
    tally = await _write_reports(ns, Rubric([Criterion(requirement="r")]), grader, _Source(ns), out)  # type: ignore[arg-type]
    assert out.ids == [f"it{i}" for i in range(3000)]
    assert tally.items == 3000 and tally.not_graded == 0
    # the workers, a task or two per item in flight, the ticker and the test: not 3,000
    assert peak <= 24


def test_a_bad_line_is_found_before_any_judge_call(
    tmp_path: Path, chat_server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric, answers = _rubric(tmp_path / "r.yaml"), _input(tmp_path / "in.jsonl", 5)
    with answers.open("a") as f:
        f.write("{not json\n")
    out = tmp_path / "out.jsonl"
    out.write_text("what the user had\n")
    args = ["grade", str(rubric), str(answers), "-o", str(out), "--judge", "openai/test"]
    assert main([*args, "--base-url", chat_server.base_url]) == 1
    assert "in.jsonl line 6: not valid JSON" in capsys.readouterr().err
    assert chat_server.chat_requests == []
    assert out.read_text() == "what the user had\n"


def test_run_dir_needs_unique_ids_and_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric, answers = _rubric(tmp_path / "r.yaml"), _input(tmp_path / "in.jsonl", 3)
    with answers.open("a") as f:
        f.write(json.dumps({"id": "it1", "submission": "again"}) + "\n")
    run = ["--judge", "fake", "--run-dir", str(tmp_path / "run")]
    assert main(["grade", str(rubric), str(answers), *run]) == 1
    assert "line 4: the id 'it1' of line 2 again" in capsys.readouterr().err
    assert main(["grade", str(rubric), "-", *run]) == 1
    assert "--run-dir needs an INPUT file" in capsys.readouterr().err
    assert main(["grade", str(rubric), str(answers), "--judge", "fake", "--resume"]) == 1
    assert "--resume needs --run-dir" in capsys.readouterr().err


def test_sigkill_then_resume_writes_every_line_and_repeats_nothing(
    tmp_path: Path, chat_server: ChatServer
) -> None:
    items, criteria, concurrency = 30, 2, 3
    chat_server.handler = _slow(0.02)
    rubric = _rubric(tmp_path / "r.yaml", criteria)
    answers = _input(tmp_path / "in.jsonl", items)
    out, run_dir = tmp_path / "out.jsonl", tmp_path / "run"
    out.write_text("the previous results\n")
    cmd = [
        sys.executable, "-m", "rubricjudge._cli.main", "grade", str(rubric), str(answers),
        "-o", str(out), "--judge", "openai/test", "--base-url", chat_server.base_url,
        "--run-dir", str(run_dir), "--concurrency", str(concurrency),
    ]  # fmt: skip
    env = {**os.environ, "RUBRICJUDGE_CACHE_DIR": str(tmp_path / "cache-1")}
    log = tmp_path / "stderr.txt"
    with log.open("w") as err:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + 60
        while len(chat_server.chat_requests) < items * criteria // 3:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the run never got going"
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert out.read_text() == "the previous results\n"  # a killed run replaces nothing
    first = len(chat_server.chat_requests)

    chat_server.requests.clear()
    env["RUBRICJUDGE_CACHE_DIR"] = str(tmp_path / "cache-2")  # only the run store remembers
    done = subprocess.run([*cmd, "--resume"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    second = Counter(_item(r.json) for r in chat_server.chat_requests)
    assert first + sum(second.values()) <= items * criteria + concurrency * criteria
    assert max(second.values()) <= criteria
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == [f"it{i}" for i in range(items)]
    assert all(x["score"] == 1.0 and len(x["report"]) == criteria for x in lines)
    assert f"graded {items} items" in done.stderr

    # a finished run resumed again asks nothing and writes the same lines
    chat_server.requests.clear()
    again = subprocess.run([*cmd, "--resume"], env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert chat_server.chat_requests == []
    assert [json.loads(x) for x in out.read_text().splitlines()] == lines
