"""The failure policy: recorded errors, no score (or a partial floor), fallbacks, raise."""

from __future__ import annotations

from typing import Any

import pytest

from rubricjudge import (
    ConfigError,
    Criterion,
    CriterionOption,
    CriterionVerdict,
    JudgeError,
    Rubric,
)
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._fake import FakeJudge

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS


@pytest.fixture
def rubric() -> Rubric:
    return Rubric(
        [
            Criterion(name="ok", weight=10, requirement="Answers the question"),
            Criterion(name="pos", weight=10, requirement="Cites a source"),
            Criterion(name="neg", weight=-10, requirement="Contains a factual error"),
        ]
    )


def failing(
    broken: set[int], *, error: BaseException | None = None, reply: Any = None
) -> FakeJudge:
    """MET on criteria not in ``broken``; the error (or bad reply) on the others."""

    def answer(req: Any) -> Any:
        if req.tags["criterion"] in broken:
            if reply is not None:
                return reply
            return error or JudgeError("took too long", category="timeout")
        return {"reason": "yes", "verdict": "MET"}

    return FakeJudge(default=answer, tokens_per_call=3)


async def test_a_failure_is_recorded_with_its_category(rubric: Rubric) -> None:
    report = await CriterionGrader(failing({1})).grade(rubric, "x")
    bad = (report.report or [])[1]
    assert bad.error == "timeout: took too long" and bad.error_category == "timeout"
    assert bad.verdict is CA and bad.is_error
    assert report.error_count == 1
    # a judge failure is not CANNOT_ASSESS: the item has no score (it was skipped before)
    assert report.score is None and report.passed is None
    assert report.error is not None
    assert "the judge failed on 1 of 3 criteria that carry weight" in report.error
    assert "'pos': timeout: took too long" in report.error


@pytest.mark.parametrize("strategy", ["skip", "zero", "partial", "fail"])
async def test_cannot_assess_strategy_does_not_price_a_failure(
    rubric: Rubric, strategy: str
) -> None:
    report = await CriterionGrader(failing({1}), cannot_assess=strategy).grade(rubric, "x")
    assert report.score is None
    # the opt-in floor: the failed criterion earns nothing, whatever the strategy
    grader = CriterionGrader(failing({1}), cannot_assess=strategy, judge_failure="partial")
    floor = await grader.grade(rubric, "x")
    assert floor.partial is True
    assert floor.score == pytest.approx(rubric.compute_score(["MET", "UNMET", "MET"]))


async def test_fallback_verdicts_change_the_score(rubric: Rubric) -> None:
    scores = {}
    for name, fallback in {
        "none": None,
        "optimistic": {"positive": "MET", "negative": "UNMET"},
        "worst": {"positive": "UNMET", "negative": "MET"},
    }.items():
        grader = CriterionGrader(
            failing({1, 2}), default_fallback_verdicts=fallback, cannot_assess="partial"
        )
        report = await grader.grade(rubric, "x")
        assert report.error_count == 2
        assert all(r.error for r in (report.report or [])[1:])
        scores[name] = report.score
    assert scores["optimistic"] == pytest.approx(rubric.compute_score(["MET", "MET", "UNMET"]))
    assert scores["worst"] == pytest.approx(rubric.compute_score(["MET", "UNMET", "MET"]))
    assert scores["none"] is None  # no fallback: the failures leave no score
    assert len(set(scores.values())) == 3


async def test_fallback_on_multi_choice_picks_the_worst_or_best_option() -> None:
    levels = [
        CriterionOption(label=x, value=v) for x, v in (("low", 0.0), ("mid", 0.5), ("hi", 1.0))
    ]
    rubric = Rubric(
        [
            Criterion(name="fine", weight=1, requirement="ok"),
            Criterion(name="plus", weight=5, requirement="quality", options=levels),
            Criterion(name="minus", weight=-5, requirement="severity", options=levels),
        ]
    )
    worst = {"positive": "UNMET", "negative": "MET"}
    report = await CriterionGrader(failing({1, 2}), default_fallback_verdicts=worst).grade(
        rubric, "x"
    )
    _, plus, minus = report.report or []
    assert plus.selection is not None and plus.selection.label == "low"
    assert minus.selection is not None and minus.selection.label == "hi"
    best = {"positive": "MET", "negative": "UNMET"}
    report = await CriterionGrader(failing({1, 2}), default_fallback_verdicts=best).grade(
        rubric, "x"
    )
    _, plus, minus = report.report or []
    assert plus.selection is not None and plus.selection.label == "hi"
    assert minus.selection is not None and minus.selection.label == "low"


def test_fallback_verdicts_are_checked() -> None:
    with pytest.raises(ConfigError, match="'positive' and 'negative'"):
        CriterionGrader("fake", default_fallback_verdicts={"positive": "MET"})
    with pytest.raises(ConfigError, match="'MAYBE'"):
        CriterionGrader("fake", default_fallback_verdicts={"positive": "MAYBE", "negative": "MET"})
    with pytest.raises(ConfigError, match="on_error"):
        CriterionGrader("fake", on_error="ignore")


async def test_on_error_raise_raises_the_judge_error(rubric: Rubric) -> None:
    with pytest.raises(JudgeError, match="took too long") as info:
        await CriterionGrader(failing({2}), on_error="raise").grade(rubric, "x")
    assert info.value.category == "timeout"


async def test_nothing_graded_means_score_none(rubric: Rubric) -> None:
    report = await CriterionGrader(failing({0, 1, 2})).grade(rubric, "x")
    assert report.score is None and report.error_count == 3
    assert report.error is not None and "timeout" in report.error
    # with fallback verdicts the fallbacks score (see the next test)


@pytest.mark.parametrize(
    "reply",
    [
        {"reason": "hmm", "verdict": "MAYBE"},
        {"reason": "no verdict at all"},
        "I think it is fine.",
    ],
)
async def test_unusable_replies_are_parse_errors(rubric: Rubric, reply: Any) -> None:
    report = await CriterionGrader(failing({1}, reply=reply)).grade(rubric, "x")
    bad = (report.report or [])[1]
    assert bad.error_category == "parse" and bad.verdict is CA


async def test_a_parse_error_keeps_the_usage_it_cost(rubric: Rubric) -> None:
    reply = {"reason": "hmm", "verdict": "MAYBE"}
    grader = CriterionGrader(failing({1}, reply=reply), evidence="off")
    report = await grader.grade(rubric, "x")
    assert report.token_usage is not None and report.token_usage.prompt_tokens == 9
    assert report.judge_calls == 3


async def test_a_user_judge_raising_anything_is_recorded(rubric: Rubric) -> None:
    report = await CriterionGrader(failing({0}, error=RuntimeError("boom"))).grade(rubric, "x")
    bad = (report.report or [])[0]
    assert bad.error_category == "unknown" and bad.error is not None and "boom" in bad.error
    # an unknown price stays unknown: the failed call's cost is not a silent 0
    assert report.completion_cost is None


async def test_seed_reply_keys_are_understood(rubric: Rubric) -> None:
    judge = FakeJudge(default={"criterion_status": "UNMET", "explanation": "not there"})
    report = await CriterionGrader(judge).grade(rubric, "x")
    first = (report.report or [])[0]
    assert first.verdict is UNMET and first.reason == "not there"


async def test_fallback_verdicts_score_even_when_every_criterion_failed(rubric: Rubric) -> None:
    # the `rubric` package scores its fallbacks; only without them is nothing graded
    fallback = {"positive": "UNMET", "negative": "MET"}
    grader = CriterionGrader(failing({0, 1, 2}), default_fallback_verdicts=fallback)
    report = await grader.grade(rubric, "x")
    assert report.error_count == 3 and report.score == 0.0 and report.error is None
    kind = {"positive": "MET", "negative": "UNMET"}
    kinder = CriterionGrader(failing({0, 1, 2}), default_fallback_verdicts=kind)
    assert (await kinder.grade(rubric, "x")).score == 1.0
    plain = await CriterionGrader(failing({0, 1, 2})).grade(rubric, "x")
    assert plain.score is None and plain.error is not None


async def test_a_subclass_aggregate_decides_the_score(rubric: Rubric) -> None:
    from rubricjudge import CriterionReport, EvaluationReport

    class MetShare(CriterionGrader):
        async def aggregate(  # type: ignore[override]
            self, reports: list[CriterionReport], *, rubric: Rubric, normalize: bool = True
        ) -> EvaluationReport:
            met = sum(r.verdict is MET for r in reports)
            return EvaluationReport(score=met / len(reports), report=reports)

    report = await MetShare(failing({1}), evidence="off").grade(rubric, "x")
    assert report.score == pytest.approx(2 / 3)  # not the weighted formula
    assert report.judge_calls == 3 and report.metadata["grader"] == "per-criterion"

    class Bad(CriterionGrader):
        def aggregate(self, reports: Any, *, rubric: Rubric, normalize: bool = True) -> Any:
            return 0.5

    with pytest.raises(ConfigError, match="must return an EvaluationReport"):
        await Bad(failing(set()), evidence="off").grade(rubric, "x")


async def test_holistic_all_negative_raw_score_follows_the_seed_formula() -> None:
    # the seed: raw_score = llm / 100 * total_positive_weight, so 0.0 with no positive
    # weight (the `rubric` package's code gives -2.4 here; docs/scoring.md lists the difference)
    from rubricjudge._graders._holistic import RubricAsJudgeGrader

    faults = Rubric(
        [
            Criterion(name="a", weight=-2, requirement="Is rude"),
            Criterion(name="b", weight=-6, requirement="Is wrong"),
        ]
    )
    report = await RubricAsJudgeGrader(FakeJudge([{"reason": "", "score": 70}])).grade(faults, "t")
    assert report.score == pytest.approx(0.7) and report.raw_score == 0.0
    assert report.llm_raw_score == 70


async def test_autorubric_llm_config_names_the_judge(rubric: Rubric) -> None:
    from rubricjudge import LLMConfig

    grader = CriterionGrader(llm_config=LLMConfig(model="fake", temperature=0.0, max_tokens=64))
    assert grader.judge_ids == ["fake"]
    report = await grader.grade(rubric, "x")
    assert report.score is not None
    with pytest.raises(ConfigError, match="llm_config= or a judge"):
        CriterionGrader("fake", llm_config=LLMConfig(model="fake"))
    options = LLMConfig(model="openai/m", api_base="http://127.0.0.1:1/v1").judge_options()
    assert options["base_url"] == "http://127.0.0.1:1/v1" and options["max_tokens"] is None
