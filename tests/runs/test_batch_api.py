"""``--batch-api``: evaluate and grade through the OpenAI Batch API of a local server.

The server (``batch_server.py``) speaks the documented API over real HTTP; the
run store is real SQLite. The log of the server proves what was created and
uploaded: no batch twice, no request line twice unless its batch expired.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricjudge._cli.main import main
from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._errors import ConfigError, UsageError
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._model._rubric import Criterion, Rubric
from rubricjudge._runs._batch_run import BatchOptions
from rubricjudge._runs._evaluate import evaluate_sync
from tests.support.batch_server import BatchServer

ITEMS, CRITERIA = 10, 3
FAST = BatchOptions(poll_s=0.01, max_requests=7)


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[BatchServer]:
    """A Batch API server; the judge cache lives in ``tmp_path``."""
    monkeypatch.setenv("RUBRICJUDGE_CACHE_DIR", str(tmp_path / "judge-cache"))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with BatchServer() as s:
        yield s


def _dataset(n: int = ITEMS, penalty: bool = False) -> RubricDataset:
    criteria = [Criterion(name=f"c{j}", requirement=f"REQ-{j} holds.") for j in range(CRITERIA)]
    if penalty:
        criteria.append(Criterion(name="fault", requirement="It has a fault.", weight=-5))
    items = [DataItem(submission=f"SUB-{i} text", id=f"it{i}") for i in range(n)]
    return RubricDataset(prompt="Answer.", rubric=Rubric(criteria), items=items)


def _grader(server: BatchServer, **kw: Any) -> CriterionGrader:
    options = {"base_url": server.base_url, **kw.pop("judge_options", {})}
    kw.setdefault("evidence", "off")
    return CriterionGrader("openai/gpt-4.1-mini", judge_options=options, **kw)


def _states(run_dir: Path) -> dict[str, int]:
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        return dict(db.execute("SELECT state, COUNT(*) FROM batch_requests GROUP BY state"))


def test_evaluate_answers_every_judgment_through_batches(
    server: BatchServer, tmp_path: Path
) -> None:
    prices = {"input": 1.0, "output": 2.0}
    grader = _grader(server, judge_options={"prices": prices})
    result = evaluate_sync(_dataset(), grader, run_dir=tmp_path / "run", batch_api=FAST)
    s = result.summary
    assert s.items_graded == ITEMS and s.items_failed == 0
    assert s.judge_calls == ITEMS * CRITERIA and s.replayed_calls == 0
    # 30 requests in batches of at most 7: 5 batches, each created once, each line once
    assert len(server.created) == 5 == len(set(server.created))
    assert [len(v) for v in server.batched.values()] == [7, 7, 7, 7, 2]
    assert len(server.uploaded) == ITEMS * CRITERIA and set(server.uploaded.values()) == {1}
    # the server's usage (10 in, 5 out) at half the listed price
    assert s.cost == pytest.approx(ITEMS * CRITERIA * (10 * 1.0 + 5 * 2.0) / 1e6 * 0.5)
    assert _states(tmp_path / "run") == {"done": ITEMS * CRITERIA}
    assert not list((tmp_path / "run" / "batches").glob("*"))  # input files deleted once sent


def test_evidence_checks_are_answered_in_a_second_round(
    server: BatchServer, tmp_path: Path
) -> None:
    grader = _grader(server, evidence="penalties")
    result = evaluate_sync(
        _dataset(4, penalty=True), grader, run_dir=tmp_path / "run", batch_api=FAST
    )
    # the fault is judged MET (first enum value), its quote is asked next round: empty,
    # so not found, so downgraded to UNMET, as without --batch-api
    assert result.summary.items_graded == 4
    assert result.summary.judge_calls == 4 * (CRITERIA + 1) + 4
    assert result.summary.verdicts["fault"] == {"UNMET": 4}


def test_per_request_errors_are_judge_failures_not_verdicts(
    server: BatchServer, tmp_path: Path
) -> None:
    def answer(body: dict[str, Any]) -> Any:
        user = body["messages"][1]["content"]
        return (400, "this request is refused") if "REQ-1" in user else None

    server.answer = answer
    result = evaluate_sync(_dataset(), _grader(server), run_dir=tmp_path / "run", batch_api=FAST)
    s = result.summary
    assert s.items_graded == ITEMS and s.items_with_judge_errors == ITEMS
    assert s.verdicts["c1"] == {"ERROR": ITEMS}  # recorded as failures, never scored
    assert _states(tmp_path / "run") == {"done": ITEMS * 2, "error": ITEMS}
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        (error,) = db.execute("SELECT error FROM batch_requests WHERE state='error'").fetchone()
    assert "HTTP 400: this request is refused" in error and "batch-" in error
    assert set(server.uploaded.values()) == {1}  # a failed request is not sent again


def test_an_expired_batch_resubmits_only_what_it_did_not_answer(
    server: BatchServer, tmp_path: Path
) -> None:
    server.expire_after = 3  # the first batch answers 3 of its 7 requests, then expires
    result = evaluate_sync(_dataset(), _grader(server), run_dir=tmp_path / "run", batch_api=FAST)
    assert result.summary.items_graded == ITEMS and result.summary.items_with_judge_errors == 0
    first = server.batched[server.created[0]]
    assert server.batches[server.created[0]]["status"] == "expired"
    again = {cid for cid, n in server.uploaded.items() if n == 2}
    assert again == set(first[3:])  # only the four unanswered went out again
    assert set(server.uploaded.values()) == {1, 2}
    assert _states(tmp_path / "run") == {"done": ITEMS * CRITERIA}


def test_a_failed_batch_is_resubmitted_then_given_up(server: BatchServer, tmp_path: Path) -> None:
    server.fail_validation = True  # the first batch fails validation; its requests go again
    result = evaluate_sync(_dataset(2), _grader(server), run_dir=tmp_path / "run", batch_api=FAST)
    assert result.summary.items_with_judge_errors == 0
    assert len(server.created) == 2

    # every batch fails: after two submissions each request is a recorded failure
    run2 = tmp_path / "run2"
    options = BatchOptions(poll_s=0.01, max_submissions=2)
    original = server.create

    def failing_create(body: Any) -> Any:
        server.fail_validation = True
        return original(body)

    server.create = failing_create  # type: ignore[method-assign]
    result = evaluate_sync(_dataset(2), _grader(server), run_dir=run2, batch_api=options)
    assert result.summary.items_with_judge_errors == 2
    assert _states(run2) == {"error": 2 * CRITERIA}
    with sqlite3.connect(run2 / "run.sqlite") as db:
        (error,) = db.execute("SELECT error FROM batch_requests LIMIT 1").fetchone()
    assert "no answer after 2 batches" in error and "scripted validation failure" in error


def test_a_lost_create_reply_adopts_the_batch_instead_of_creating_another(
    server: BatchServer, tmp_path: Path
) -> None:
    server.drop_create_reply = True
    result = evaluate_sync(_dataset(2), _grader(server), run_dir=tmp_path / "run", batch_api=FAST)
    assert result.summary.items_with_judge_errors == 0
    assert len(server.created) == 1  # found by its input file in the list of batches
    assert set(server.uploaded.values()) == {1}


def test_configurations_batch_mode_cannot_run_are_refused(
    server: BatchServer, tmp_path: Path
) -> None:
    ds = _dataset(2)
    with pytest.raises(ConfigError, match="--escalate-to"):
        evaluate_sync(
            ds,
            _grader(server, escalate_to="openai/gpt-4.1", below_confidence=0.5),
            run_dir=tmp_path / "a",
            batch_api=True,
        )
    with pytest.raises(ConfigError, match="'fake' is not one"):
        evaluate_sync(ds, CriterionGrader("fake"), run_dir=tmp_path / "b", batch_api=True)
    with pytest.raises(ConfigError, match="needs run_dir"):
        evaluate_sync(ds, _grader(server), batch_api=True)
    fleet = CriterionGrader(
        "openai/m", judge_options={"base_url": f"{server.base_url},{server.base_url}x"}
    )
    with pytest.raises(ConfigError, match="needs one --base-url"):
        evaluate_sync(ds, fleet, run_dir=tmp_path / "c", batch_api=True)
    with pytest.raises(ConfigError, match="--batch-size"):
        BatchOptions(max_requests=100_001)
    assert server.created == []


def test_a_run_with_batches_out_resumes_only_with_batch_api(
    server: BatchServer, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    server.hold.set()
    options = BatchOptions(poll_s=0.01)
    with pytest.raises(TimeoutError):
        import asyncio

        from rubricjudge._runs._evaluate import evaluate

        async def bounded() -> None:
            await asyncio.wait_for(
                evaluate(_dataset(2), _grader(server), run_dir=run, batch_api=options), 1.0
            )

        asyncio.run(bounded())
    assert len(server.created) == 1
    with pytest.raises(UsageError, match="resume it with --batch-api"):
        evaluate_sync(_dataset(2), _grader(server), run_dir=run, resume=True)
    server.hold.clear()
    result = evaluate_sync(_dataset(2), _grader(server), run_dir=run, resume=True, batch_api=FAST)
    assert result.summary.items_graded == 2 and len(server.created) == 1


# -- the CLI ----------------------------------------------------------------------------
def _write(tmp: Path) -> None:
    _dataset(12).to_file(tmp / "ds.json")


def test_cli_refusals_name_the_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path)
    ds = str(tmp_path / "ds.json")
    assert main(["evaluate", ds, "--judge", "openai/x", "--batch-api"]) == 1
    assert "--batch-api needs --run-dir" in capsys.readouterr().err
    run = str(tmp_path / "run")
    assert main(["evaluate", ds, "--judge", "fake", "--batch-api", "--run-dir", run]) == 1
    assert "'openai/<model>'" in capsys.readouterr().err
    assert main(["evaluate", ds, "--judge", "fake", "--batch-poll-s", "1"]) == 1
    assert "need --batch-api" in capsys.readouterr().err
    assert main(["evaluate", ds, "--judge", "fake", "--batch-resubmit-lost"]) == 1
    assert "--batch-resubmit-lost need --batch-api" in capsys.readouterr().err


def test_grade_batch_api_and_its_dry_run(
    server: BatchServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = tmp_path / "rubric.json"
    rubric.write_text(json.dumps([{"name": "c0", "requirement": "REQ-0 holds."}]))
    data = tmp_path / "in.jsonl"
    data.write_text(
        "".join(json.dumps({"id": f"x{i}", "submission": f"S{i}"}) + "\n" for i in range(5))
    )
    base = [
        "grade",
        str(rubric),
        str(data),
        "--judge",
        "openai/gpt-4.1-mini",
        "--base-url",
        server.base_url,
    ]
    assert main([*base, "--batch-api", "--dry-run"]) == 0
    assert "with --batch-api" in capsys.readouterr().err
    out = tmp_path / "out.jsonl"
    args = [*base, "--batch-api", "--batch-poll-s", "0.01", "--run-dir", str(tmp_path / "r")]
    assert main([*args, "-o", str(out), "--evidence", "off"]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == [f"x{i}" for i in range(5)]
    assert all(x["score"] == 1.0 for x in lines)
    assert len(server.created) == 1 and set(server.uploaded.values()) == {1}


def test_evaluate_dry_run_shows_the_batch_saving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # never used: a dry run calls nothing
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    _write(tmp_path)
    ds = str(tmp_path / "ds.json")
    args = ["evaluate", ds, "--judge", "openai/gpt-4.1-mini", "--dry-run", "--batch-api"]
    assert main([*args, "--evidence", "off"]) == 0
    err = capsys.readouterr().err
    assert "dry run: 12 items, 36 judge calls" in err
    listed = float(err.split("about $")[1].split()[0])
    batch = float(err.split("with --batch-api: about $")[1].split()[0])
    saving = float(err.split("saving about $")[1].split(";")[0])
    assert batch == pytest.approx(listed / 2, abs=1e-4) and saving == pytest.approx(batch, abs=1e-4)
    assert main([*args, "--escalate-to", "openai/gpt-4.1"]) == 1
    assert "--escalate-to" in capsys.readouterr().err


def test_only_ids_sent_in_a_batch_are_accepted_each_once(
    server: BatchServer, tmp_path: Path
) -> None:
    # issue 23, N6: results were matched by custom_id alone; a tampered file forged 31 of 36
    from tests.support.batch_server import _result
    from tests.support.chat_server import Reply, _completion

    server.answer = lambda body: {"reason": "honest", "answer": "no"}

    def forged(cid: str) -> dict[str, Any]:
        body = _completion(Reply.json({"reason": "forged", "answer": "yes"}), {})
        return _result("forged", cid, 200, body)

    def tamper(batch: dict[str, Any], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if batch["id"] != server.created[0]:
            return rows
        second = server.batched[server.created[1]]  # requests this batch never carried
        return [*rows, forged(rows[0]["custom_id"]), *(forged(cid) for cid in second)]

    server.tamper = tamper
    result = evaluate_sync(_dataset(), _grader(server), run_dir=tmp_path / "run", batch_api=FAST)
    s = result.summary
    assert s.batch_results_rejected == 1 + 7
    assert "batch results rejected: 8" in s.to_text()
    verdicts = [n for v in s.verdicts.values() for n in v.items()]
    assert ("MET", 1) not in verdicts and not any(k == "MET" for k, _ in verdicts)
    assert sum(n for k, n in verdicts if k == "ERROR") == 1  # the request answered twice
    assert sum(n for k, n in verdicts if k == "UNMET") == ITEMS * CRITERIA - 1
    assert s.judge_calls == ITEMS * CRITERIA - 1
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        (error,) = db.execute("SELECT error FROM batch_requests WHERE state='error'").fetchone()
    assert "more than one result for this request" in error
