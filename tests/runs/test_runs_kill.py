"""Kill `rubricjudge evaluate` with SIGKILL mid-run, resume it, and check the server's log.

The judge is the real OpenAI backend talking to the scripted chat server; the run
store is the only thing that remembers answers across the kill (each process gets
its own empty judge response cache).
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._judges._fake import fake_reply_for_schema
from rubricjudge._model._rubric import Criterion, Rubric
from tests.support.chat_server import ChatServer, Reply, schema_of

ITEMS, CRITERIA, CONCURRENCY = 24, 3, 4
PAIR = re.compile(r"SUBMISSION-(\d+).*REQUIREMENT-(\d+)", re.DOTALL)

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def _write_dataset(path: Path) -> None:
    rubric = Rubric(
        [Criterion(name=f"c{j}", requirement=f"REQUIREMENT-{j} holds.") for j in range(CRITERIA)]
    )
    items = [DataItem(submission=f"SUBMISSION-{i} text", id=f"it{i}") for i in range(ITEMS)]
    RubricDataset(prompt="Answer.", rubric=rubric, items=items).to_file(path)


def _pair(body: dict) -> tuple[str, str]:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    m = PAIR.search(user)
    assert m is not None, user
    return f"it{m.group(1)}", f"c{m.group(2)}"


def _committed(run_dir: Path) -> set[tuple[str, str]]:
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        rows = db.execute("SELECT item_key, tags FROM judgments").fetchall()
    return {(item, json.loads(tags)["key"]) for item, tags in rows}


def _cli(tmp: Path, server: ChatServer, run_dir: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "rubricjudge._cli.main", "evaluate", str(tmp / "ds.json"),
        "--judge", "openai/test", "--base-url", server.base_url, "--run-dir", str(run_dir),
        "--concurrency", str(CONCURRENCY), *extra,
    ]  # fmt: skip


def test_sigkill_then_resume_repeats_and_loses_nothing(
    tmp_path: Path, chat_server: ChatServer
) -> None:
    _write_dataset(tmp_path / "ds.json")
    chat_server.handler = lambda body: Reply.json(
        fake_reply_for_schema(schema_of(body) or {}), delay=0.02
    )
    run_dir = tmp_path / "run"
    env = {**os.environ, "RUBRICJUDGE_CACHE_DIR": str(tmp_path / "cache-1")}
    log = tmp_path / "stderr-1.txt"
    with log.open("w") as err:
        proc = subprocess.Popen(
            _cli(tmp_path, chat_server, run_dir),
            env=env, stdout=subprocess.DEVNULL, stderr=err,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while len(chat_server.chat_requests) < ITEMS * CRITERIA // 3:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the run never got going"
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    first = Counter(_pair(r.json) for r in chat_server.chat_requests)
    committed = _committed(run_dir)
    assert committed and committed <= set(first)
    assert len(set(first) - committed) <= CONCURRENCY  # at most the calls in flight were lost
    assert max(first.values()) == 1

    chat_server.requests.clear()
    env["RUBRICJUDGE_CACHE_DIR"] = str(tmp_path / "cache-2")  # no help from the judge cache
    done = subprocess.run(
        _cli(tmp_path, chat_server, run_dir, "--resume", "--json"),
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    second = Counter(_pair(r.json) for r in chat_server.chat_requests)
    assert not committed & set(second), "a committed judgment was requested again"
    assert max(second.values()) == 1
    everything = {(f"it{i}", f"c{j}") for i in range(ITEMS) for j in range(CRITERIA)}
    assert committed | set(second) == everything
    assert _committed(run_dir) == everything

    summary = json.loads(done.stdout)
    assert summary["items_graded"] == ITEMS and summary["items_failed"] == 0
    assert summary["judge_calls"] == ITEMS * CRITERIA
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        statuses = db.execute("SELECT status, COUNT(*) FROM items GROUP BY status").fetchall()
    assert statuses == [("done", ITEMS)]
