"""``evaluate --batch-api`` killed with SIGKILL and resumed, for both batch APIs.

The OpenAI Batch API (``batch_server.py``) and Anthropic's Message Batches
(``anthropic_batch_server.py``) run the same two scenarios: killed while polling,
and killed after a batch was created but before its id came back. The servers'
logs prove that no batch is created twice and no request is sent twice.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._model._rubric import Criterion, Rubric
from tests.support.anthropic_batch_server import AnthropicBatchServer
from tests.support.batch_server import BatchServer

CRITERIA = 3

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


@dataclass
class Api:
    """One batch API: its local server, the judge that uses it, what it was sent."""

    name: str
    server: Any
    judge: str
    env: dict[str, str]

    def sent(self) -> Counter[str]:
        """How often each request went out in a batch."""
        return self.server.uploaded if self.name == "openai" else self.server.sent

    def cli(self, tmp: Path, *extra: str) -> list[str]:
        return [
            sys.executable, "-m", "rubricjudge._cli.main", "evaluate", str(tmp / "ds.json"),
            "--judge", self.judge, "--base-url", self.server.base_url,
            "--run-dir", str(tmp / "run"), "--evidence", "off", "--batch-api",
            "--batch-poll-s", "0.02", "--batch-size", "10", *extra,
        ]  # fmt: skip

    def run_env(self, tmp: Path) -> dict[str, str]:
        return {
            **os.environ,
            "RUBRICJUDGE_CACHE_DIR": str(tmp / "cache"),
            "PYTHONPATH": "src",
            **self.env,
        }


@pytest.fixture(params=["openai", "anthropic"])
def api(request: pytest.FixtureRequest) -> Iterator[Api]:
    if request.param == "openai":
        with BatchServer() as s:
            yield Api("openai", s, "openai/gpt-4.1-mini", {})
    else:
        with AnthropicBatchServer() as s:
            yield Api("anthropic", s, "anthropic/claude-test", {"ANTHROPIC_API_KEY": "sk-ant-test"})


def _write(tmp: Path) -> None:
    criteria = [Criterion(name=f"c{j}", requirement=f"REQ-{j} holds.") for j in range(CRITERIA)]
    items = [DataItem(submission=f"SUB-{i} text", id=f"it{i}") for i in range(12)]
    RubricDataset(prompt="Answer.", rubric=Rubric(criteria), items=items).to_file(tmp / "ds.json")


def _resume(api: Api, tmp: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        api.cli(tmp, "--resume", "--json"),
        env=api.run_env(tmp), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def test_sigkill_while_polling_then_resume_creates_no_batch_twice(api: Api, tmp_path: Path) -> None:
    _write(tmp_path)
    server = api.server
    server.hold.set()  # batches stay in_progress: the process is polling when killed
    log = tmp_path / "stderr.txt"
    with log.open("w") as err:
        proc = subprocess.Popen(
            api.cli(tmp_path), env=api.run_env(tmp_path), stdout=subprocess.DEVNULL, stderr=err
        )
        deadline = time.monotonic() + 60
        while len(server.created) < 4 or server.polls < 12:  # 36 requests: four batches
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the run never started polling"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    created = list(server.created)
    assert len(created) == 4

    server.hold.clear()
    done = _resume(api, tmp_path)
    assert server.created == created  # polled, never created again
    assert len(api.sent()) == 12 * CRITERIA and set(api.sent().values()) == {1}
    summary = json.loads(done.stdout)
    assert summary["items_graded"] == 12 and summary["items_failed"] == 0
    assert summary["judge_calls"] == 12 * CRITERIA
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM judgments").fetchone() == (12 * CRITERIA,)
        rows = db.execute("SELECT status, COUNT(*) FROM items GROUP BY status").fetchall()
    assert rows == [("done", 12)]


def test_sigkill_after_the_batch_was_created_but_before_its_id_came_back(
    api: Api, tmp_path: Path
) -> None:
    _write(tmp_path)
    server = api.server
    server.hang_create = True  # the first batch is created, its reply never sent
    log = tmp_path / "stderr.txt"
    with log.open("w") as err:
        proc = subprocess.Popen(
            api.cli(tmp_path), env=api.run_env(tmp_path), stdout=subprocess.DEVNULL, stderr=err
        )
        deadline = time.monotonic() + 60
        while not server.created:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "no batch was created"
            time.sleep(0.01)
        time.sleep(0.1)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    server.release.set()
    first = server.created[0]
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        rows = db.execute("SELECT batch_id, intent IS NOT NULL FROM batches").fetchall()
        files = db.execute("SELECT input_file_id FROM batches").fetchall()
    assert rows == [(None, 1)]  # the create call was made, its id lost
    if api.name == "openai":  # the input file was uploaded before the create
        assert files == [(server.batches[first]["input_file_id"],)]

    done = _resume(api, tmp_path)
    assert server.created[0] == first and len(server.created) == 4  # adopted, not re-created
    assert set(api.sent().values()) == {1}
    assert json.loads(done.stdout)["items_graded"] == 12
    if api.name == "openai":
        inputs = [server.batches[b]["input_file_id"] for b in server.created]
        assert inputs.count(server.batches[first]["input_file_id"]) == 1
