"""``--batch-api`` with ``anthropic/`` judges: Message Batches on a local server.

The server (``anthropic_batch_server.py``) speaks the documented API over real
HTTP; the run store is real SQLite. Its log proves what was created: no batch
twice, no request twice unless its batch left it unanswered.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._errors import RunError
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._anthropic_batch import AnthropicBatches
from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._registry import get_judge
from rubricjudge._model._rubric import Criterion, Rubric
from rubricjudge._runs._batch_run import BatchOptions, adapter_for
from rubricjudge._runs._evaluate import evaluate_sync
from tests.support.anthropic_batch_server import AnthropicBatchServer
from tests.support.anthropic_server import AnthropicServer, tool_use

ITEMS, CRITERIA = 10, 3
FAST = BatchOptions(poll_s=0.01, max_requests=7)
MODEL = "anthropic/claude-test"


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AnthropicBatchServer]:
    """A Message Batches server; the judge cache lives in ``tmp_path``."""
    monkeypatch.setenv("RUBRICJUDGE_CACHE_DIR", str(tmp_path / "judge-cache"))
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    with AnthropicBatchServer() as s:
        yield s


def _dataset(n: int = ITEMS) -> RubricDataset:
    criteria = [Criterion(name=f"c{j}", requirement=f"REQ-{j} holds.") for j in range(CRITERIA)]
    items = [DataItem(submission=f"SUB-{i} text", id=f"it{i}") for i in range(n)]
    return RubricDataset(prompt="Answer.", rubric=Rubric(criteria), items=items)


def _grader(server: AnthropicBatchServer, **options: Any) -> CriterionGrader:
    opts = {"base_url": server.base_url, "api_key": "sk-ant-test", **options}
    return CriterionGrader(MODEL, judge_options=opts, evidence="off")


def _states(run_dir: Path) -> dict[str, int]:
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        return dict(db.execute("SELECT state, COUNT(*) FROM batch_requests GROUP BY state"))


def _user(params: dict[str, Any]) -> str:
    return "".join(b["text"] for b in params["messages"][0]["content"])


def test_evaluate_answers_every_judgment_through_message_batches(
    server: AnthropicBatchServer, tmp_path: Path
) -> None:
    grader = _grader(server, prices={"input": 3.0, "output": 15.0})
    result = evaluate_sync(_dataset(), grader, run_dir=tmp_path / "run", batch_api=FAST)
    s = result.summary
    assert s.items_graded == ITEMS and s.items_failed == 0 and s.items_with_judge_errors == 0
    assert s.judge_calls == ITEMS * CRITERIA and s.replayed_calls == 0
    # 30 requests in batches of at most 7: five batches, each created once, each request once
    assert [len(server.batched[b]) for b in server.created] == [7, 7, 7, 7, 2]
    assert len(server.sent) == ITEMS * CRITERIA and set(server.sent.values()) == {1}
    # the server's usage (10 in, 5 out) at half the listed price
    assert s.cost == pytest.approx(ITEMS * CRITERIA * (10 * 3.0 + 5 * 15.0) / 1e6 * 0.5)
    assert _states(tmp_path / "run") == {"done": ITEMS * CRITERIA}
    # the params are what messages.create takes, the SDK-only options left out
    params = server.requests[server.created[0]][0]["params"]
    assert params["model"] == "claude-test" and params["tool_choice"]["type"] == "tool"
    assert "timeout" not in params and "extra_body" not in params


def test_a_batch_answer_equals_the_live_answer(tmp_path: Path) -> None:
    reply = tool_use(
        {"verdict": "MET", "reason": "fine"},
        thinking="weighing it",
        usage={"input_tokens": 7, "output_tokens": 3, "cache_read_input_tokens": 20},
    )
    request = JudgeRequest(system="S", user="U", schema={"type": "object"})
    with AnthropicServer() as live:
        live.script(reply)
        judge = get_judge(MODEL, base_url=live.base_url, api_key="k")
        got_live = asyncio.run(judge.judge(request))
    batches = adapter_for(judge)
    assert isinstance(batches, AnthropicBatches)
    line = {"custom_id": "rq-1", "result": {"type": "succeeded", "message": reply}}
    got = batches.read(line, None, batches.body(request)).response
    assert got is not None
    for field in ("data", "raw_text", "usage", "reasoning", "model"):
        assert getattr(got, field) == getattr(got_live, field), field


def test_errored_results_are_judge_failures_and_transient_ones_are_asked_again(
    server: AnthropicBatchServer, tmp_path: Path
) -> None:
    overloaded: set[str] = set()

    def answer(params: dict[str, Any]) -> Any:
        user = _user(params)
        if "REQ-1" in user:
            return ("invalid_request_error", "this request is refused")
        if "REQ-2" in user and user not in overloaded:
            overloaded.add(user)  # overloaded once, answered the next time
            return ("overloaded_error", "busy")
        return None

    server.answer = answer
    result = evaluate_sync(_dataset(), _grader(server), run_dir=tmp_path / "run", batch_api=FAST)
    s = result.summary
    assert s.items_graded == ITEMS and s.items_with_judge_errors == ITEMS
    assert s.verdicts["c1"] == {"ERROR": ITEMS}  # recorded as failures, never scored
    assert "ERROR" not in s.verdicts["c2"]  # the overloaded ones went out again and were answered
    assert _states(tmp_path / "run") == {"done": ITEMS * 2, "error": ITEMS}
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        (error,) = db.execute("SELECT error FROM batch_requests WHERE state='error'").fetchone()
    assert "invalid_request_error: this request is refused" in error and "msgbatch_" in error
    assert sorted(server.sent.values()).count(2) == ITEMS  # only the overloaded went twice


def test_expired_requests_are_resubmitted_alone(
    server: AnthropicBatchServer, tmp_path: Path
) -> None:
    server.expire_after = 3  # the first batch answers 3 of its 7 requests; the rest expire
    result = evaluate_sync(_dataset(), _grader(server), run_dir=tmp_path / "run", batch_api=FAST)
    assert result.summary.items_graded == ITEMS and result.summary.items_with_judge_errors == 0
    first = server.created[0]
    assert server.batches[first]["request_counts"]["expired"] == 4
    again = {cid for cid, n in server.sent.items() if n == 2}
    assert again == set(server.batched[first][3:])
    assert _states(tmp_path / "run") == {"done": ITEMS * CRITERIA}


def test_requests_expired_too_often_are_recorded_failures(
    server: AnthropicBatchServer, tmp_path: Path
) -> None:
    server.expire_after = 1  # one answered, the rest expire; no second chance allowed
    options = BatchOptions(poll_s=0.01, max_submissions=1)
    result = evaluate_sync(
        _dataset(1), _grader(server), run_dir=tmp_path / "run", batch_api=options
    )
    assert result.summary.items_with_judge_errors == 1
    assert _states(tmp_path / "run") == {"done": 1, "error": CRITERIA - 1}
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        (error,) = db.execute("SELECT error FROM batch_requests WHERE state='error'").fetchone()
    assert "no answer after 1 batches" in error and "expired before it ran" in error
    assert len(server.created) == 1


def test_a_lost_create_reply_adopts_the_batch_by_time_and_size(
    server: AnthropicBatchServer, tmp_path: Path
) -> None:
    server.foreign(4)  # someone else's batch, of another size: never a candidate
    server.drop_create_reply = True
    result = evaluate_sync(_dataset(2), _grader(server), run_dir=tmp_path / "run", batch_api=FAST)
    assert result.summary.items_with_judge_errors == 0
    assert len(server.created) == 1 and set(server.sent.values()) == {1}
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        assert db.execute("SELECT batch_id FROM batches").fetchall() == [(server.created[0],)]


def test_an_ambiguous_lost_create_is_refused_until_the_user_decides(
    server: AnthropicBatchServer, tmp_path: Path
) -> None:
    server.drop_create_reply = True
    server.foreign(2 * CRITERIA)  # a batch of the same size, created at the same time
    run = tmp_path / "run"
    with pytest.raises(RunError, match="--batch-resubmit-lost") as info:
        evaluate_sync(_dataset(2), _grader(server), run_dir=run, batch_api=FAST)
    assert server.created[0] in str(info.value)
    assert len(server.created) == 1  # nothing created a second time silently
    # resuming as the message says sends the requests in a new batch
    options = BatchOptions(poll_s=0.01, resubmit_lost=True)
    result = evaluate_sync(
        _dataset(2), _grader(server), run_dir=run, resume=True, batch_api=options
    )
    assert result.summary.items_graded == 2 and result.summary.items_with_judge_errors == 0
    assert len(server.created) == 2 and set(server.sent.values()) == {2}
