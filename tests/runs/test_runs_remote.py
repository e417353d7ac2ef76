"""Grading on workers (here in-process) while the driver commits: same results, same resume."""

from __future__ import annotations

import json
import pickle
import sqlite3
import sys
from pathlib import Path

import pytest

from rubricjudge import GraderSpec
from rubricjudge._cli.main import main
from rubricjudge._errors import ConfigError
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._graders._holistic import RubricAsJudgeGrader
from rubricjudge._runs._evaluate import evaluate
from rubricjudge._runs._remote import InProcessExecutor
from tests.support.chat_server import ChatServer, Reply
from tests.support.remote_helpers import answer, dataset, pair, user_text


def _spec(server: ChatServer, **options: object) -> GraderSpec:
    judge_options = {"base_url": server.base_url, "cache": False, "max_retries": 0}
    return GraderSpec(judge="openai/test", options={"judge_options": judge_options, **options})


def _judgments(run_dir: Path) -> set[tuple[str, str, int, str]]:
    """Every stored judgment's key and answer (latencies differ from run to run)."""
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        rows = db.execute("SELECT item_key, request_hash, occurrence, response FROM judgments")
        return {(k, h, o, json.dumps(json.loads(r)["data"])) for k, h, o, r in rows}


def test_spec_is_plain_data_and_builds_the_grader() -> None:
    spec = GraderSpec("holistic", judge="fake", options={"concurrency": 3})
    assert pickle.loads(pickle.dumps(spec)) == spec
    grader = spec.build()
    assert isinstance(grader, RubricAsJudgeGrader) and grader.concurrency == 3
    assert isinstance(GraderSpec(judges=["fake", "fake"]).build(), CriterionGrader)


def test_spec_refuses_what_cannot_travel() -> None:
    with pytest.raises(ConfigError, match=r"'per-critrion' is not one of .*did you mean"):
        GraderSpec("per-critrion")
    with pytest.raises(ConfigError, match="not both"):
        GraderSpec(judge="fake", judges=["fake"])
    with pytest.raises(ConfigError, match="plain data"):
        GraderSpec(judge="fake", options={"length_penalty": lambda n: n})


async def test_worker_path_equals_local_path(tmp_path: Path, chat_server: ChatServer) -> None:
    chat_server.handler = answer
    spec = _spec(chat_server)
    local = await evaluate(dataset(8), spec.build(), run_dir=tmp_path / "local")
    local_requests = len(chat_server.chat_requests)
    remote = await evaluate(
        dataset(8), spec.build(), run_dir=tmp_path / "remote", executor=InProcessExecutor(spec)
    )
    assert len(chat_server.chat_requests) == 2 * local_requests == 2 * 8 * 3
    assert remote.scores == local.scores
    assert remote.summary.verdicts == local.summary.verdicts
    assert remote.summary.judge_calls == local.summary.judge_calls == 24
    assert _judgments(tmp_path / "remote") == _judgments(tmp_path / "local")
    in_memory = await evaluate(dataset(8), spec.build(), executor=InProcessExecutor(spec))
    assert [r.score for r in in_memory.reports if r] == local.scores
    assert in_memory.summary.judge_calls == 24


async def test_run_resumed_on_workers_asks_only_what_is_missing(
    tmp_path: Path, chat_server: ChatServer
) -> None:
    def flaky(body: object) -> Reply:  # item 3's second criterion fails the first time
        if "SUBMISSION-3 " in user_text(body) and "REQUIREMENT-1" in user_text(body):
            return Reply.server_error(500)
        return answer(body)

    chat_server.handler = flaky
    spec = _spec(chat_server)
    run_dir = tmp_path / "run"
    first = await evaluate(dataset(6), spec.build(), run_dir=run_dir)  # in process
    assert {o.key: o.status for o in first.outcomes}["it3"] == "partial"
    assert first.summary.errors.get("judge:server") == 1
    chat_server.requests.clear()
    chat_server.handler = answer
    second = await evaluate(
        dataset(6), spec.build(), run_dir=run_dir, resume=True, executor=InProcessExecutor(spec)
    )
    assert [pair(r.json) for r in chat_server.chat_requests] == [("it3", "c1")]
    assert second.summary.replayed_calls == 2
    assert all(o.status == "done" for o in second.outcomes)
    clean = await evaluate(dataset(6), spec.build())
    assert second.scores == clean.scores


def test_missing_ray_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from rubricjudge._ray._setup import import_ray

    monkeypatch.setitem(sys.modules, "ray", None)  # as if it were not installed
    with pytest.raises(ConfigError, match=r"pip install 'rubricjudge\[ray\]'"):
        import_ray()
    assert (
        main(["evaluate", "example:llm_rubric_microsoft", "--judge", "fake", "--executor", "ray"])
        == 1
    )


def test_ray_flags_need_the_ray_executor(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["evaluate", "example:llm_rubric_microsoft", "--judge", "fake", "--ray-actors", "2"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "--ray-address, --ray-actors, --ray-env and --ray-env-var need --executor ray" in err
