"""A run of many judge calls is counted first: said from 2,000, refused past the limit.

``--group`` of 200 submissions made 40,800 judge calls and ``--repeats 1000`` ran
without a word. Now ``grade`` and ``evaluate`` count the calls as ``--dry-run`` does
and, past 20,000 (or ``--max-calls N``), stop with exit 3 before any call unless
``--yes`` is given. The judge is the scripted HTTP server: no request may reach it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricjudge import RubricDataset
from rubricjudge._cli._call_limit import DEFAULT_LIMIT, EXIT_TOO_MANY, NOTE_AT
from rubricjudge._cli.main import main
from rubricjudge._model._rubric import Criterion, Rubric
from tests.support.chat_server import ChatServer, Reply
from tests.support.pairwise_helpers import grade

RUBRIC = """\
- name: paris
  weight: 2
  requirement: Names Paris
- name: why
  weight: 1
  requirement: Says why
"""


def _answers(path: Path, n: int) -> Path:
    path.write_text("".join(json.dumps({"submission": f"Paris {i}."}) + "\n" for i in range(n)))
    return path


def test_a_group_of_200_is_refused_before_any_call(
    tmp_path: Path, chat_server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    groups = tmp_path / "g.jsonl"
    group = [f"Paris, answer {i}." for i in range(200)]
    groups.write_text(json.dumps({"id": "g1", "submissions": group}) + "\n")
    out = tmp_path / "out.jsonl"
    code = grade(tmp_path, chat_server, str(groups), "--group", "-o", str(out), rubric=RUBRIC)
    err = capsys.readouterr().err
    assert code == EXIT_TOO_MANY, err
    # 200 x 2 criteria graded, and if every score ties 19,900 pairs x 2 orders
    assert "would make 40,200 judge calls (1 groups, if every score ties)" in err
    assert f"more than the limit of {DEFAULT_LIMIT:,}" in err and "--yes" in err
    assert chat_server.chat_requests == [] and not out.exists()


def test_repeats_past_the_limit_are_refused_and_max_calls_caps_even_with_yes(
    tmp_path: Path, chat_server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = _answers(tmp_path / "a.jsonl", 11)
    args = [str(answers), "--repeats", "1000", "--evidence", "off"]
    assert grade(tmp_path, chat_server, *args, rubric=RUBRIC) == EXIT_TOO_MANY
    err = capsys.readouterr().err
    assert "would make 22,000 judge calls (11 items)" in err
    capped = [*args, "--yes", "--max-calls", "21999"]
    assert grade(tmp_path, chat_server, *capped, rubric=RUBRIC) == EXIT_TOO_MANY
    err = capsys.readouterr().err
    assert "more than the limit of 21,999" in err and "--max-calls 22000" in err
    assert grade(tmp_path, chat_server, *args, "--max-calls", "0", rubric=RUBRIC) == 1
    assert "--max-calls 0 must be at least 1" in capsys.readouterr().err
    assert chat_server.chat_requests == []


def test_a_large_run_says_its_count_and_yes_lets_it_go(
    tmp_path: Path, chat_server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = lambda body: Reply.json({"reason": "r", "verdict": "MET"})
    answers = _answers(tmp_path / "a.jsonl", 2)
    rubric = "- name: paris\n  weight: 1\n  requirement: Names Paris\n"
    args = [str(answers), "--repeats", str(NOTE_AT // 2), "--evidence", "off", "--yes"]
    assert grade(tmp_path, chat_server, *args, "--concurrency", "64", rubric=rubric) == 0
    err = capsys.readouterr().err
    assert f"this run makes up to {NOTE_AT:,} judge calls (2 items" in err
    assert len(chat_server.chat_requests) == NOTE_AT  # the count was the truth
    small = _answers(tmp_path / "b.jsonl", 3)
    assert grade(tmp_path, chat_server, str(small), "--evidence", "off", rubric=rubric) == 0
    assert "judge calls (" not in capsys.readouterr().err  # a small run says nothing more


def test_evaluate_counts_its_scope(
    tmp_path: Path, chat_server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = Rubric([Criterion(name="c", requirement="Names Paris")])
    ds = RubricDataset(prompt="Capital?", rubric=rubric)
    for i in range(30):
        ds.add_item(submission=f"Paris {i}", id=f"i{i}")
    path = tmp_path / "ds.json"
    ds.to_file(path)
    base = ["evaluate", str(path), "--judge", "openai/test", "--base-url", chat_server.base_url]
    code = main([*base, "--repeats", "1000", "--max-items", "25"])
    err = capsys.readouterr().err
    assert code == EXIT_TOO_MANY and "would make 25,000 judge calls (25 items)" in err
    assert main([*base, "--max-calls", "29"]) == EXIT_TOO_MANY
    assert "would make 30 judge calls (30 items)" in capsys.readouterr().err
    assert chat_server.chat_requests == []
