"""``evaluate_rubric``: mixed rubrics graded concurrently, scored by the shared scoring."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from rubricjudge import ConfigError, Criterion, Rubric, ScoringMethod
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._graders._mixed import evaluate_rubric, evaluate_rubric_sync
from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._methods._functions import FunctionRegistry
from tests.support.helpers import graded_levels

LEVELS = graded_levels("Too few", "Enough", "Plenty")


def fn(cid: str, ref: str, weight: float = 1.0, options: Any = LEVELS) -> Criterion:
    return Criterion(
        id=cid,
        name=cid.title(),
        requirement=f"{cid} check passes",
        weight=weight,
        options=options,
        scoring_method=ScoringMethod(type="function", function_ref=ref),
    )


def mixed() -> Rubric:
    return Rubric(
        [
            fn("count", "app:count", 0.4),
            Criterion(
                id="shape",
                name="Shape",
                requirement="Has questions",
                weight=0.2,
                scoring_method=ScoringMethod(
                    type="json_schema", schema={"type": "object", "required": ["questions"]}
                ),
            ),
            Criterion(
                id="ped",
                name="Pedagogy",
                requirement="Tests understanding",
                weight=0.2,
                options=LEVELS,
                scoring_method=ScoringMethod(
                    type="llm_decode", decode_prompt="{{ questions | join(', ') }}"
                ),
            ),
            Criterion(id="tone", name="Tone", requirement="Uses a friendly tone", weight=0.2),
        ],
        id="quiz",
        name="Quiz",
        version="1.0.0",
        pass_threshold=0.8,
    )


def judge() -> FakeJudge:
    def reply(req: JudgeRequest) -> dict[str, Any]:
        if req.schema_name == "level_choice":
            return {"level_id": "excellent", "reason": "deep"}
        return {"verdict": "UNMET", "reason": "curt"}

    return FakeJudge(default=reply)


async def test_mixed_rubric_matches_the_shared_scoring() -> None:
    funcs = FunctionRegistry({"app:count": lambda c: "pass"})
    report = await evaluate_rubric(
        mixed(), {"questions": ["a", "b"]}, judge=judge(), functions=funcs
    )
    leaves = report.report or []
    assert [r.level_id for r in leaves] == ["pass", "MET", "excellent", "UNMET"]
    assert [r.scoring_method_used.value for r in leaves if r.scoring_method_used] == [
        "function",
        "json_schema",
        "llm_decode",
        "llm",
    ]
    expected = mixed().compute_score(["pass", "MET", "excellent", "UNMET"])
    assert report.score == pytest.approx(expected)
    assert report.passed is (expected >= 0.8)
    assert report.judge_calls == 2
    assert report.feedback_summary is not None
    assert report.feedback_summary.startswith("Evaluation FAILED for rubric 'Quiz'.")
    assert report.metadata["feedback"]["source"] == "deterministic"
    assert report.metadata["rubric_version"] == "1.0.0"


async def test_criteria_run_concurrently() -> None:
    # each async function waits until all three are running; sequential grading would time out
    arrived = 0
    everyone = asyncio.Event()

    async def rendezvous(_: Any) -> str:
        nonlocal arrived
        arrived += 1
        if arrived == 3:
            everyone.set()
        await asyncio.wait_for(everyone.wait(), timeout=5)
        return "pass"

    barrier = threading.Barrier(2, timeout=5)

    def sync_rendezvous(_: Any) -> bool:
        barrier.wait()  # two sync functions must be in worker threads at the same time
        return True

    reg = FunctionRegistry({"a:r": rendezvous, "a:s": sync_rendezvous})
    rubric = Rubric(
        [
            fn("c1", "a:r"),
            fn("c2", "a:r"),
            fn("c3", "a:r"),
            fn("s1", "a:s", options=None),
            fn("s2", "a:s", options=None),
        ]
    )
    report = await evaluate_rubric(rubric, {}, functions=reg)
    assert report.error_count == 0, [r.error for r in report.report or []]
    assert report.score == pytest.approx(rubric.compute_score(["pass"] * 3 + ["MET"] * 2))


async def test_errors_are_counted_and_nested_rubrics_assemble() -> None:
    def boom(_: Any) -> str:
        raise RuntimeError("db down")

    rubric = Rubric(
        [
            Criterion(
                name="group",
                requirement="All parts",
                weight=2.0,
                subcriteria=[fn("a", "app:ok"), fn("b", "app:boom")],
            ),
            fn("c", "app:ok"),
        ],
        pass_threshold=0.5,
    )
    report = await evaluate_rubric(
        rubric, {}, functions={"app:ok": lambda _: "excellent", "app:boom": boom}
    )
    assert report.error_count == 1
    top = report.report or []
    assert top[0].children is not None and top[0].children[1].error_category == "function"
    # the failed leaf carries weight: no score (it was skipped as CANNOT_ASSESS, 1.0, before)
    assert report.score is None and report.passed is None
    assert "could not be evaluated" in (report.feedback_summary or "")


async def test_usage_errors_come_before_any_call() -> None:
    j = judge()
    with pytest.raises(ConfigError, match="app:count"):
        await evaluate_rubric(mixed(), {}, judge=j)  # function not registered
    assert j.requests == []
    with pytest.raises(ConfigError, match="pass judge="):
        await evaluate_rubric(mixed(), {}, functions={"app:count": lambda c: "pass"})


def test_sync_wrapper_and_the_grader_route_to_run_method() -> None:
    rubric = Rubric([fn("count", "app:count")], pass_threshold=0.5)
    funcs = {"app:count": lambda c: "excellent"}
    assert evaluate_rubric_sync(rubric, {}, functions=funcs, feedback="none").passed is True
    # the graders hand non-LLM criteria to run_method as well
    report = CriterionGrader(FakeJudge(), functions=funcs).grade_sync(rubric, "text")
    assert (report.report or [])[0].level_id == "excellent"
