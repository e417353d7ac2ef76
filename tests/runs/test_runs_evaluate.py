"""evaluate(): concurrency, run store, resume, refusal of changed inputs, summaries."""

from __future__ import annotations

import asyncio
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._errors import ConfigError, JudgeError, UsageError
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._model._reports import EvaluationReport
from rubricjudge._model._rubric import Criterion, CriterionOption, Rubric
from rubricjudge._runs._evaluate import evaluate, evaluate_sync
from rubricjudge._runs._recording import request_hash
from rubricjudge._runs._result import RunResult


def _rubric(extra: str = "") -> Rubric:
    return Rubric(
        [
            Criterion(name="correct", requirement="The answer is correct" + extra, weight=10),
            Criterion(name="brief", requirement="The answer is brief", weight=5),
            Criterion(
                name="tone",
                requirement="The tone",
                options=[
                    CriterionOption(label="cold", value=0.0),
                    CriterionOption(label="warm", value=1.0),
                ],
            ),
        ]
    )


def _dataset(n: int = 12, rubric: Rubric | None = None, text: str = "answer") -> RubricDataset:
    items = [DataItem(submission=f"{text} {i}", id=f"item-{i}") for i in range(n)]
    return RubricDataset(prompt="Say something", rubric=rubric or _rubric(), items=items)


def _answer(request: JudgeRequest) -> dict[str, Any]:
    """A deterministic judge: its answer depends on the prompt only."""
    props = request.schema.get("properties", {})
    odd = sum(map(ord, request.user)) % 2 == 1
    out: dict[str, Any] = {}
    for key, spec in props.items():
        if "enum" in spec:
            out[key] = spec["enum"][0 if odd else 1]
        elif spec.get("type") == "integer":
            out[key] = spec.get("minimum", 1) if odd else spec.get("maximum", 1)
        else:
            out[key] = "because"
    return out


class Counting(FakeJudge):
    """A fake judge that counts requests by hash and can be told to fail or stop."""

    def __init__(self, *, fail_user: str | None = None, stop_after: int | None = None) -> None:
        super().__init__(default=self._reply, name="counting", tokens_per_call=7)
        self.hashes: Counter[str] = Counter()
        self.fail_user = fail_user
        self.stop_after = stop_after

    def _reply(self, request: JudgeRequest) -> Any:
        if self.stop_after is not None and len(self.hashes) >= self.stop_after:
            raise _Crash("simulated crash")
        self.hashes[request_hash(self.name, request)] += 1
        if self.fail_user is not None and self.fail_user in request.user:
            return JudgeError("the server is down", category="server")
        return _answer(request)


class _Crash(BaseException):
    """Stands for the process dying: nothing catches it."""


def _grader(judge: Any, **kw: Any) -> CriterionGrader:
    return CriterionGrader(judge=judge, **kw)


async def test_in_memory_run_grades_every_item_in_order() -> None:
    judge = Counting()
    result = await evaluate(_dataset(), _grader(judge), concurrency=4)
    assert [o.key for o in result.outcomes] == [f"item-{i}" for i in range(12)]
    assert all(o.status == "done" for o in result.outcomes)
    reports = result.reports
    assert len(reports) == 12 and all(isinstance(r, EvaluationReport) for r in reports)
    s = result.summary
    assert s.items_graded == 12 and s.judge_calls == 36 == len(judge.requests)
    assert s.tokens is not None and s.tokens.total_tokens == 36 * 7
    assert sum(s.verdicts["correct"].values()) == 12
    assert set(s.latency_s) == {"p50", "p90", "p99", "max"}


async def test_store_commits_and_resume_repeats_nothing(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    first = Counting()
    a = await evaluate(_dataset(), _grader(first), run_dir=run_dir)
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == 36
        assert db.execute("SELECT COUNT(*) FROM items WHERE status='done'").fetchone()[0] == 12
    second = Counting()
    b = await evaluate(_dataset(), _grader(second), run_dir=run_dir, resume=True)
    assert second.requests == []
    assert b.summary.items_resumed == 12 and b.summary.judge_calls == 36
    assert [r.score for r in b.reports if r] == [r.score for r in a.reports if r]
    opened = RunResult.open(run_dir)
    assert opened.scores == a.scores
    assert opened.summary.verdicts == a.summary.verdicts


async def test_crash_then_resume_asks_each_question_once(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    crashing = Counting(stop_after=17)
    with pytest.raises(_Crash):
        await evaluate(_dataset(), _grader(crashing), run_dir=run_dir, concurrency=3)
    answered = set(crashing.hashes)
    assert len(answered) == 17
    resumed = Counting()
    result = await evaluate(_dataset(), _grader(resumed), run_dir=run_dir, resume=True)
    assert not answered & set(resumed.hashes), "a finished judgment was asked again"
    assert max(resumed.hashes.values()) == 1
    assert len(answered) + len(resumed.hashes) == 36
    assert all(o.status == "done" for o in result.outcomes) and len(result.outcomes) == 12
    clean = await evaluate(_dataset(), _grader(Counting()))
    assert result.scores == clean.scores


async def test_judge_failures_are_partial_and_retried_on_resume(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    flaky = Counting(fail_user="answer 3\n")
    first = await evaluate(_dataset(), _grader(flaky), run_dir=run_dir)
    statuses = {o.key: o.status for o in first.outcomes}
    assert statuses["item-3"] == "partial"
    assert sum(1 for s in statuses.values() if s == "done") == 11
    assert first.summary.items_with_judge_errors == 1
    assert first.summary.errors.get("judge:server") == 3
    healthy = Counting()
    second = await evaluate(_dataset(), _grader(healthy), run_dir=run_dir, resume=True)
    assert len(healthy.requests) == 3 and all("answer 3\n" in r.user for r in healthy.requests)
    assert all(o.status == "done" for o in second.outcomes)


class _Exploding:
    """A grader stand-in that raises on one item."""

    def __init__(self, inner: CriterionGrader, bad: str) -> None:
        self.inner = inner
        self.bad = bad

    async def grade(self, rubric: Rubric, to_grade: str, **kw: Any) -> EvaluationReport:
        if to_grade == self.bad:
            raise RuntimeError("boom")
        return await self.inner.grade(rubric, to_grade, **kw)


async def test_item_failure_is_recorded_and_run_goes_on(tmp_path: Path) -> None:
    grader = _Exploding(_grader(Counting()), "answer 5")
    result = await evaluate(_dataset(), grader, run_dir=tmp_path / "r")
    failed = [o for o in result.outcomes if o.status == "failed"]
    assert [o.key for o in failed] == ["item-5"] and failed[0].error == "RuntimeError: boom"
    assert result.summary.items_failed == 1 and result.summary.items_graded == 11
    assert result.summary.errors == {"item:RuntimeError": 1}
    fixed = await evaluate(
        _dataset(), _grader(Counting()), run_dir=tmp_path / "r", resume=True, force=True
    )
    assert all(o.status == "done" for o in fixed.outcomes)


async def test_existing_run_needs_resume_or_force(tmp_path: Path) -> None:
    await evaluate(_dataset(3), _grader(Counting()), run_dir=tmp_path)
    with pytest.raises(UsageError, match="already holds a run"):
        await evaluate(_dataset(3), _grader(Counting()), run_dir=tmp_path)
    again = Counting()
    await evaluate(_dataset(3), _grader(again), run_dir=tmp_path, force=True)
    assert len(again.requests) == 9  # started over


@pytest.mark.parametrize(
    ("change", "what"),
    [
        ({"text": "reply"}, "dataset"),
        ({"rubric": _rubric(" and complete")}, "rubric"),
        ({"system_prompt": "Be strict."}, "judge configuration"),
    ],
)
async def test_changed_inputs_are_refused_unless_forced(
    tmp_path: Path, change: dict[str, Any], what: str
) -> None:
    await evaluate(_dataset(4), _grader(Counting()), run_dir=tmp_path)
    system = change.pop("system_prompt", None)
    ds = _dataset(4, **change)
    grader = _grader(Counting(), system_prompt=system)
    with pytest.raises(UsageError, match=f"different {what}"):
        await evaluate(ds, grader, run_dir=tmp_path, resume=True)
    judge = Counting()
    result = await evaluate(
        ds, _grader(judge, system_prompt=system), run_dir=tmp_path, resume=True, force=True
    )
    assert result.summary.items_resumed == 0
    assert all(o.status == "done" for o in result.outcomes)


class _Sampler:
    """A grader stand-in that asks its judge the same question twice (two samples)."""

    def __init__(self, judge: Any) -> None:
        self.judge = judge

    async def grade(self, rubric: Rubric, to_grade: str, **kw: Any) -> EvaluationReport:
        req = JudgeRequest(system="s", user=to_grade, schema={"type": "object"})
        first = await self.judge.judge(req)
        second = await self.judge.judge(req)
        return EvaluationReport(
            score=0.5, id=kw.get("item_id"), metadata={"n": [first.cached, second.cached]}
        )


async def test_concurrency_is_not_part_of_the_configuration(tmp_path: Path) -> None:
    await evaluate(_dataset(3), _grader(Counting(), concurrency=2), run_dir=tmp_path)
    again = await evaluate(
        _dataset(3), _grader(Counting(), concurrency=9), run_dir=tmp_path, resume=True
    )
    assert again.summary.items_resumed == 3


async def test_repeated_identical_requests_are_separate_judgments(tmp_path: Path) -> None:
    judge = Counting()
    result = await evaluate(_dataset(2), _Sampler(judge), run_dir=tmp_path)
    assert len(judge.requests) == 4
    assert [r.metadata["n"] for r in result.reports if r] == [[False, False]] * 2
    with sqlite3.connect(tmp_path / "run.sqlite") as db:
        assert db.execute("SELECT MAX(occurrence) FROM judgments").fetchone()[0] == 1
    with sqlite3.connect(tmp_path / "run.sqlite") as db:
        db.execute("DELETE FROM items")  # as if the process died before the items finished
    replay = Counting()
    again = await evaluate(_dataset(2), _Sampler(replay), run_dir=tmp_path, resume=True)
    assert replay.requests == []
    assert [r.metadata["n"] for r in again.reports if r] == [[True, True]] * 2


class _Tracking:
    """A grader stand-in that records how many items are in flight, and tasks alive."""

    def __init__(self) -> None:
        self.active = 0
        self.peak = 0
        self.peak_tasks = 0

    async def grade(self, rubric: Rubric, to_grade: str, **kw: Any) -> EvaluationReport:
        self.active += 1
        self.peak = max(self.peak, self.active)
        self.peak_tasks = max(self.peak_tasks, len(asyncio.all_tasks()))
        await asyncio.sleep(0.001)
        self.active -= 1
        return EvaluationReport(score=0.5, id=kw.get("item_id"))


async def test_bounded_pool_never_creates_a_task_per_item() -> None:
    grader = _Tracking()
    seen: list[tuple[int, int]] = []
    result = await evaluate(
        _dataset(200), grader, concurrency=5, progress=lambda d, t: seen.append((d, t))
    )
    assert len(result.outcomes) == 200
    assert grader.peak == 5
    assert grader.peak_tasks <= 5 + 2  # the workers, the test, nothing per item
    assert seen[-1] == (200, 200) and len(seen) == 200


async def test_max_items_and_bad_arguments(tmp_path: Path) -> None:
    result = await evaluate(_dataset(), _grader(Counting()), max_items=4, run_dir=tmp_path)
    assert len(result.outcomes) == 4 and result.summary.items_total == 4
    assert sum(r is not None for r in RunResult.open(tmp_path).reports) == 4
    with pytest.raises(ConfigError, match="concurrency"):
        await evaluate(_dataset(), _grader(Counting()), concurrency=0)
    with pytest.raises(ConfigError, match="running event loop"):
        evaluate_sync(_dataset(), _grader(Counting()))


def test_evaluate_sync_and_open_missing(tmp_path: Path) -> None:
    result = evaluate_sync(_dataset(3), _grader(Counting()))
    assert len(result.outcomes) == 3
    with pytest.raises(ConfigError, match="not a run directory"):
        RunResult.open(tmp_path / "nope")


async def test_metrics_from_a_run_directory(tmp_path: Path) -> None:
    from rubricjudge._metrics._compute import compute_metrics

    items = [
        DataItem(submission=f"answer {i}", id=f"item-{i}", ground_truth=["MET", "UNMET", "warm"])
        for i in range(10)
    ]
    ds = RubricDataset(prompt="Say something", rubric=_rubric(), items=items)
    result = await evaluate(ds, _grader(Counting()), run_dir=tmp_path, max_items=8)
    from_dir = compute_metrics(tmp_path, ds)
    from_result = compute_metrics(result, ds)
    assert from_dir.to_jsonable() == from_result.to_jsonable()
    assert from_dir.criterion("correct").n == 8
    assert from_dir.criterion("correct").n_missing == 0
    assert from_dir.items_judged == 8


def test_an_id_spelt_like_an_unnamed_items_name_is_its_own_item(tmp_path: Path) -> None:
    # item 0's author named it "#1", the name the unnamed item at index 1 gets: the run
    # refused the dataset ("share the id"); names are unique by construction now
    items = [DataItem(submission="A", id="#1"), DataItem(submission="B"), DataItem("C")]
    ds = RubricDataset(prompt="Say something", rubric=_rubric(), items=items)
    result = evaluate_sync(ds, _grader(Counting()), run_dir=tmp_path / "run")
    assert [o.key for o in result.outcomes] == ["#1", "##1", "#2"]
    assert all(o.status == "done" for o in result.outcomes)
    plain = RubricDataset(prompt="Say something", rubric=_rubric(), items=items[1:])
    again = evaluate_sync(plain, _grader(Counting()))
    assert [o.key for o in again.outcomes] == ["#0", "#1"]  # as runs always named them
