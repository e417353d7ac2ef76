"""Criteria scored by code, schema or decode inside a grader: registry, failure policy."""

from __future__ import annotations

from typing import Any

import pytest

from rubricjudge import (
    ConfigError,
    Criterion,
    CriterionVerdict,
    JudgeError,
    Rubric,
    ScoringMethod,
)
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._graders._oneshot import PerCriterionOneShotGrader
from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._methods._functions import FunctionRegistry
from tests.support.helpers import levels

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS
LEVELS = levels("low", "mid", "high")
WORST = {"positive": "UNMET", "negative": "MET"}


def by_code(ref: str, **kw: Any) -> ScoringMethod:
    return ScoringMethod(type="function", function_ref=ref, **kw)


def mixed() -> Rubric:
    """An LLM criterion, and three criteria decided by registered functions."""
    return Rubric(
        [
            Criterion(name="polite", weight=4, requirement="Is polite"),
            Criterion(
                name="short", weight=3, requirement="Is short", scoring_method=by_code("short")
            ),
            Criterion(
                name="swears", weight=-2, requirement="Swears", scoring_method=by_code("swears")
            ),
            Criterion(
                name="level",
                weight=5,
                requirement="How dense",
                options=LEVELS,
                scoring_method=by_code("level"),
            ),
        ]
    )


def registry(broken: set[str] = frozenset()) -> FunctionRegistry:  # type: ignore[assignment]
    """Functions that look at the output; those named in ``broken`` raise."""
    reg = FunctionRegistry()

    def make(ref: str, fn: Any) -> None:
        def call(text: str) -> Any:
            if ref in broken:
                raise ValueError(f"{ref} broke")
            return fn(text)

        reg.register(ref, call)

    make("short", lambda text: len(text.split()) < 5)
    make("swears", lambda text: "damn" in text)
    make("level", lambda text: "mid")
    return reg


def llm_met() -> FakeJudge:
    """Answers every schema validly: MET, or one object per criterion number."""
    return FakeJudge()


@pytest.mark.parametrize("grader_cls", [CriterionGrader, PerCriterionOneShotGrader])
async def test_a_function_registry_is_used_as_given(grader_cls: type[CriterionGrader]) -> None:
    reg = FunctionRegistry()
    judge = llm_met()
    grader = grader_cls(judge, functions=reg)
    assert grader.functions is reg
    for ref, fn in registry()._functions.items():
        reg.register(ref, fn)  # registered after the grader was built: still seen
    report = await grader.grade(mixed(), {"thinking": "long " * 20, "output": "Thanks, damn."})
    polite, short, swears, level = report.report or []
    assert polite.verdict is MET and short.verdict is MET and swears.verdict is MET
    assert level.selection is not None and level.selection.label == "mid"
    assert [s.scoring_method_used for s in (short, swears, level)] == ["function"] * 3
    assert report.score == pytest.approx(mixed().compute_score(["MET", "MET", "MET", "mid"]))
    assert report.judge_calls == 1 and len(judge.requests) == 1  # functions call no judge


async def test_a_plain_dict_of_functions_works_too() -> None:
    fns = {"short": lambda t: False, "swears": lambda t: False, "level": lambda t: "high"}
    report = await CriterionGrader(llm_met(), functions=fns).grade(mixed(), "x")
    assert [r.verdict for r in (report.report or [])[:3]] == [MET, UNMET, UNMET]


async def test_an_unknown_function_is_a_config_error_before_any_call() -> None:
    judge = llm_met()
    reg = registry()
    reg._functions.pop("level")
    with pytest.raises(ConfigError, match="'level' is not registered"):
        await CriterionGrader(judge, functions=reg).grade(mixed(), "x")
    assert judge.requests == []
    with pytest.raises(ConfigError, match="FunctionRegistry"):
        await CriterionGrader(judge, functions=["short"]).grade(mixed(), "x")  # type: ignore[arg-type]


async def test_a_failing_function_is_recorded_and_leaves_no_score_by_default() -> None:
    grader = CriterionGrader(llm_met(), functions=registry({"short"}))
    report = await grader.grade(mixed(), "Thanks.")
    short = (report.report or [])[1]
    assert short.verdict is CA and short.error_category == "function"
    assert short.error is not None and "short broke" in short.error
    assert report.error_count == 1
    # a failure is not CANNOT_ASSESS: no score (it was skipped, and the rest scored, before)
    assert report.score is None and "short broke" in (report.error or "")


async def test_fallback_verdicts_apply_to_failing_functions() -> None:
    broken = {"short", "swears", "level"}
    scores = {}
    for name, fallback in (("none", None), ("worst", WORST)):
        grader = CriterionGrader(
            llm_met(), functions=registry(broken), default_fallback_verdicts=fallback
        )
        report = await grader.grade(mixed(), "Thanks.")
        _, short, swears, level = report.report or []
        assert all(r.error_category == "function" for r in (short, swears, level))
        scores[name] = report.score
    # the worst case: the positive one UNMET, the error MET, the lowest option
    assert (short.verdict, swears.verdict) == (UNMET, MET)
    assert level.verdict is None and level.selection is not None
    assert level.selection.label == "low"
    assert scores["worst"] == pytest.approx(mixed().compute_score(["MET", "UNMET", "MET", "low"]))
    assert scores["none"] is None  # without fallbacks the failures leave no score
    assert scores["worst"] != scores["none"]


@pytest.mark.parametrize("grader_cls", [CriterionGrader, PerCriterionOneShotGrader])
async def test_on_error_raise_raises_a_failing_function(grader_cls: type[CriterionGrader]) -> None:
    grader = grader_cls(llm_met(), functions=registry({"swears"}), on_error="raise")
    with pytest.raises(JudgeError, match="swears broke") as info:
        await grader.grade(mixed(), "Thanks.")
    assert info.value.category == "function"
    assert str(info.value).startswith("function: swears raised ValueError")


def decode_rubric(template: str = "Answer: {{ content }}") -> Rubric:
    method = ScoringMethod(type="llm_decode", decode_prompt=template)
    return Rubric(
        [
            Criterion(name="plain", weight=1, requirement="Is an answer"),
            Criterion(name="dense", weight=2, requirement="Dense", scoring_method=method),
        ]
    )


def decode_fails(request: JudgeRequest) -> Any:
    if request.tags.get("criterion") == 0:
        return {"reason": "ok", "verdict": "MET"}
    return JudgeError("took too long", category="timeout")


async def test_a_failing_decode_judge_goes_through_the_policy() -> None:
    judge = FakeJudge(default=decode_fails)
    report = await CriterionGrader(judge).grade(decode_rubric(), "forty-two")
    dense = (report.report or [])[1]
    assert dense.error_category == "timeout" and dense.verdict is CA
    report = await CriterionGrader(judge, default_fallback_verdicts=WORST).grade(
        decode_rubric(), "forty-two"
    )
    dense = (report.report or [])[1]
    assert dense.error_category == "timeout" and dense.verdict is UNMET
    assert report.score == pytest.approx(decode_rubric().compute_score(["MET", "UNMET"]))
    with pytest.raises(JudgeError, match="took too long") as info:
        await CriterionGrader(judge, on_error="raise").grade(decode_rubric(), "forty-two")
    assert info.value.category == "timeout"


async def test_a_template_failure_raises_with_its_category_in_the_message() -> None:
    rubric = decode_rubric("{{ missing.attr }}")
    report = await CriterionGrader(llm_met()).grade(rubric, "forty-two")
    assert (report.report or [])[1].error_category == "template"
    with pytest.raises(JudgeError, match="template: decode_prompt") as info:
        await CriterionGrader(llm_met(), on_error="raise").grade(rubric, "forty-two")
    assert info.value.category == "unknown"
