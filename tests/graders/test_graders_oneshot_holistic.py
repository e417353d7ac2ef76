"""One-shot grading (with re-asks of only what went wrong) and holistic grading."""

from __future__ import annotations

from typing import Any

import pytest

from rubricjudge import Criterion, CriterionOption, CriterionVerdict, JudgeError, Rubric, Scale
from rubricjudge._graders._holistic import RubricAsJudgeGrader
from rubricjudge._graders._oneshot import PerCriterionOneShotGrader
from rubricjudge._graders._prompts import SYSTEM_CRITERION, SYSTEM_ONESHOT
from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._fake import FakeJudge

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS


@pytest.fixture
def rubric() -> Rubric:
    levels = [CriterionOption(label=x, value=v) for x, v in (("low", 0.0), ("high", 1.0))]
    return Rubric(
        [
            Criterion(name="a", weight=10, requirement="Names the cause"),
            Criterion(name="b", weight=5, requirement="Gives an example"),
            Criterion(name="c", weight=-5, requirement="States a myth"),
            Criterion(name="d", weight=4, requirement="Depth", options=levels),
        ]
    )


def oneshot_then(reply: Any, per_criterion: dict[int, Any]) -> FakeJudge:
    """The one-shot reply first, then per-criterion replies by leaf index."""

    def answer(req: JudgeRequest) -> Any:
        if req.tags["criterion"] == "all":
            return reply
        return per_criterion[req.tags["criterion"]]

    return FakeJudge(default=answer, tokens_per_call=10)


async def test_one_call_grades_every_criterion(rubric: Rubric) -> None:
    reply = {
        "1": {"reason": "r", "verdict": "MET"},
        "2": {"reason": "r", "verdict": "UNMET"},
        "3": {"reason": "r", "verdict": "UNMET"},
        "4": {"reason": "r", "option": 2},
    }
    judge = oneshot_then(reply, {})
    report = await PerCriterionOneShotGrader(judge).grade(rubric, "text")
    assert len(judge.requests) == 1 and report.judge_calls == 1
    req = judge.requests[0]
    assert set(req.schema["required"]) == {"1", "2", "3", "4"}
    assert "3. Statement: States a myth" in req.user
    assert report.score == pytest.approx(rubric.compute_score(["MET", "UNMET", "UNMET", "high"]))
    assert report.token_usage is not None and report.token_usage.prompt_tokens == 10
    assert report.completion_cost == 0.0


async def test_only_missing_or_garbled_criteria_are_re_asked(rubric: Rubric) -> None:
    reply = {
        "1": {"reason": "r", "verdict": "MET"},
        "3": {"reason": "r", "verdict": "PERHAPS"},
        "4": {"reason": "r", "option": 2},
    }
    again = {
        1: {"reason": "asked again", "verdict": "MET"},
        2: {"reason": "again", "verdict": "MET"},
    }
    judge = oneshot_then(reply, again)
    report = await PerCriterionOneShotGrader(judge, evidence="off").grade(rubric, "text")
    re_asked = [r.tags["criterion"] for r in judge.requests[1:]]
    assert sorted(re_asked) == [1, 2]
    assert judge.requests[0].system == SYSTEM_ONESHOT
    assert all(r.system == SYSTEM_CRITERION for r in judge.requests[1:])
    assert report.judge_calls == 3
    a, b, c, d = report.report or []
    assert (a.verdict, b.verdict, c.verdict) == (MET, MET, MET)
    assert b.reason == "asked again" and a.error is None
    assert report.token_usage is not None and report.token_usage.prompt_tokens == 30


async def test_an_unparseable_reply_re_asks_everything(rubric: Rubric) -> None:
    again = {i: {"reason": "r", "verdict": "UNMET"} for i in range(3)} | {
        3: {"reason": "", "option": 1}
    }
    judge = oneshot_then("this is not JSON at all", again)
    report = await PerCriterionOneShotGrader(judge).grade(rubric, "text")
    assert len(judge.requests) == 5
    assert report.score == pytest.approx(0.0) and report.error_count == 0


async def test_a_failed_call_goes_to_the_failure_policy(rubric: Rubric) -> None:
    judge = oneshot_then(JudgeError("limit", category="rate_limit"), {})
    report = await PerCriterionOneShotGrader(judge).grade(rubric, "text")
    assert len(judge.requests) == 1
    assert report.score is None and report.error_count == 4
    assert {r.error_category for r in report.report or []} == {"rate_limit"}


async def test_seed_style_one_shot_reply_is_understood(rubric: Rubric) -> None:
    reply = {
        "criteria_evaluations": [
            {"criterion_number": 1, "criterion_status": "MET", "explanation": "x"},
            {"criterion_number": 2, "criterion_status": "MET", "explanation": "x"},
            {"criterion_number": 3, "criterion_status": "UNMET", "explanation": "x"},
            {"criterion_number": 4, "option": 1, "explanation": "x"},
        ]
    }
    judge = oneshot_then(reply, {})
    report = await PerCriterionOneShotGrader(judge).grade(rubric, "text")
    assert len(judge.requests) == 1
    assert report.score == pytest.approx(rubric.compute_score(["MET", "MET", "UNMET", "low"]))


def test_one_shot_plan_is_one_call_per_judge(rubric: Rubric) -> None:
    assert PerCriterionOneShotGrader("fake").plan(rubric, "x").judge_calls == 1
    assert PerCriterionOneShotGrader(judges=["fake", "fake"]).plan(rubric, "x").judge_calls == 2


# -- holistic ---------------------------------------------------------------------
@pytest.mark.parametrize("llm", [0.0, 37.5, 85.0, 100.0])
async def test_holistic_score_and_raw_score_conversion(rubric: Rubric, llm: float) -> None:
    judge = FakeJudge([{"reason": "fine", "score": llm}])
    report = await RubricAsJudgeGrader(judge).grade(rubric, "text")
    assert report.score == pytest.approx(llm / 100)
    assert report.raw_score == pytest.approx(llm / 100 * rubric.total_positive_weight)
    assert report.llm_raw_score == llm
    assert report.report is None and report.judge_calls == 1
    user = judge.requests[0].user
    # weights shown as points out of 100, so a small judge cannot answer on their scale
    assert "- minus 26 points if the submission does this (a fault): States a myth" in user
    assert "- 53 points: Names" in user and "from 0 to 100" in user


async def test_holistic_prompt_of_a_penalties_only_rubric_starts_from_100() -> None:
    faults = Rubric(
        [
            Criterion(name="a", weight=-2, requirement="Is rude"),
            Criterion(name="b", weight=-6, requirement="Is wrong"),
        ]
    )
    judge = FakeJudge([{"reason": "", "score": 70}])
    await RubricAsJudgeGrader(judge).grade(faults, "t")
    user = judge.requests[0].user
    assert "minus 25 points if the submission does this (a fault): Is rude" in user
    assert "minus 75 points" in user and "Start from 100" in user
    assert judge.requests[0].schema["properties"]["reason"]["maxLength"] == 300


async def test_holistic_clamps_score_but_not_raw(rubric: Rubric) -> None:
    judge = FakeJudge([{"reason": "", "score": 130}, {"reason": "", "overall_score": "-10"}])
    high = await RubricAsJudgeGrader(judge).grade(rubric, "t")
    low = await RubricAsJudgeGrader(judge).grade(rubric, "t")
    assert high.score == 1.0 and high.raw_score == pytest.approx(1.3 * 19)
    assert low.score == 0.0 and low.llm_raw_score == -10


async def test_holistic_unnormalised_scale_and_threshold(rubric: Rubric) -> None:
    scaled = rubric.model_copy(update={"scale": Scale(min=1, max=5), "pass_threshold": 0.5})
    judge = FakeJudge([{"reason": "", "score": 50}, {"reason": "", "score": 50}])
    report = await RubricAsJudgeGrader(judge).grade(scaled, "t")
    assert report.scaled_score == pytest.approx(3.0) and report.passed is True
    raw = await RubricAsJudgeGrader(judge, normalize=False).grade(scaled, "t")
    assert raw.score == pytest.approx(0.5 * 19)


async def test_holistic_failures(rubric: Rubric) -> None:
    judge = FakeJudge([{"reason": "no number", "score": "lots"}])
    report = await RubricAsJudgeGrader(judge).grade(rubric, "t")
    assert report.score is None and report.error is not None and "parse" in report.error
    timeout = FakeJudge(default=JudgeError("slow", category="timeout"))
    with pytest.raises(JudgeError):
        await RubricAsJudgeGrader(timeout, on_error="raise").grade(rubric, "t")


async def test_holistic_ensemble_is_a_weighted_mean(rubric: Rubric) -> None:
    from rubricjudge._graders._ensemble import JudgeSpec

    judges = [
        JudgeSpec(FakeJudge(default={"reason": "", "score": 90}), id="x", weight=3),
        JudgeSpec(FakeJudge(default={"reason": "", "score": 50}), id="y"),
        JudgeSpec(FakeJudge(default=JudgeError("down", category="server")), id="z"),
    ]
    report = await RubricAsJudgeGrader(judges=judges).grade(rubric, "t")
    assert report.llm_raw_score == pytest.approx(80.0)
    assert report.error_count == 1 and report.judge_calls == 3
    assert report.metadata["scores"] == {"x": 90, "y": 50, "z": None}


async def test_one_shot_shows_example_labels_per_criterion(rubric: Rubric) -> None:
    judge = oneshot_then(
        {},
        {i: {"reason": "", "verdict": "MET"} for i in range(3)} | {3: {"reason": "", "option": 1}},
    )
    examples = [{"submission": "Rayleigh", "verdicts": ["MET", "UNMET", "UNMET", "high"]}]
    grader = PerCriterionOneShotGrader(judge, evidence="off")
    await grader.grade(rubric, "text", examples=examples)
    user = judge.requests[0].user
    assert "1. Statement: Names the cause [Graded examples: example-1: yes]" in user
    assert "Answer with an option number. [Graded examples: example-1: 2]" in user
    assert len(judge.requests) == 5  # the empty reply re-asked all four
