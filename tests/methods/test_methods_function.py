"""The ``function`` scoring method: registered functions, the import allow-list, failures."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from rubricjudge import ConfigError, Criterion, CriterionOption, CriterionVerdict, ScoringMethod
from rubricjudge._methods._functions import FunctionRegistry, FunctionResult
from rubricjudge._methods._run import run_method
from tests.support.helpers import graded_levels

LEVELS = graded_levels("Fewer than 3", "3 to 9", "10 or more")


def crit(
    ref: str, *, options: list[CriterionOption] | None = LEVELS, weight: float = 1.0
) -> Criterion:
    return Criterion(
        id="count",
        name="Question count",
        requirement="Has enough questions",
        weight=weight,
        options=options,
        scoring_method=ScoringMethod(type="function", function_ref=ref),
    )


def count_level(content: dict[str, Any]) -> str:
    n = len(content.get("questions", []))
    return "excellent" if n >= 10 else "pass" if n >= 3 else "fail"


@pytest.mark.parametrize(
    ("n", "level", "score"), [(1, "fail", 0.0), (4, "pass", 0.7), (12, "excellent", 1.0)]
)
async def test_registered_function_picks_the_level(n: int, level: str, score: float) -> None:
    reg = FunctionRegistry({"app:count": count_level})
    report = await run_method(crit("app:count"), {"questions": ["q"] * n}, functions=reg)
    assert report.level_id == level
    assert report.score_value == score
    assert report.selection is not None and report.selection.label == level.title()
    assert report.scoring_method_used is not None and report.scoring_method_used.value == "function"
    assert report.error is None


async def test_decorator_labels_bools_verdicts_and_async() -> None:
    reg = FunctionRegistry()

    @reg.register("app:label")
    def by_label(_: Any) -> str:
        return "Excellent"  # a label, not an id

    @reg.register("app:bool")
    async def by_bool(text: str) -> bool:
        await asyncio.sleep(0)
        return "cite" in text

    reg.register("app:verdict", lambda _: CriterionVerdict.UNMET)
    assert (await run_method(crit("app:label"), {}, functions=reg)).level_id == "excellent"
    binary = crit("app:bool", options=None)
    met = await run_method(binary, "we cite sources", functions=reg)
    unmet = await run_method(binary, "nothing", functions=reg)
    assert (met.verdict, unmet.verdict) == (CriterionVerdict.MET, CriterionVerdict.UNMET)
    assert (met.level_id, met.score_value, unmet.score_value) == ("MET", 1.0, 0.0)
    # True / False on a multi-choice criterion: its best / worst option
    top = await run_method(crit("app:bool"), "cite", functions=reg)
    assert top.level_id == "excellent"
    low = await run_method(crit("app:verdict"), "x", functions=reg)
    assert low.level_id == "fail"


async def test_function_result_carries_evidence_and_notes() -> None:
    reg = FunctionRegistry({"app:rich": lambda c: FunctionResult("pass", ["4 questions"], "ok")})
    report = await run_method(crit("app:rich"), {}, functions=reg)
    assert (report.level_id, report.evidence, report.notes) == ("pass", ["4 questions"], "ok")


async def test_sync_functions_run_in_worker_threads() -> None:
    main = threading.get_ident()
    seen: list[int] = []

    def where(_: Any) -> str:
        seen.append(threading.get_ident())
        return "pass"

    await run_method(crit("app:where"), {}, functions={"app:where": where})
    assert seen and seen[0] != main


async def test_exceptions_and_bad_returns_are_recorded_errors() -> None:
    def boom(_: Any) -> str:
        raise KeyError("questions")

    reg = FunctionRegistry(
        {"app:boom": boom, "app:odd": lambda _: "superb", "app:num": lambda _: 3}
    )
    failed = await run_method(crit("app:boom"), {}, functions=reg)
    assert failed.is_error and failed.error_category == "function"
    assert failed.verdict is CriterionVerdict.CANNOT_ASSESS and failed.selection is None
    assert failed.level_id == "error" and "KeyError" in (failed.error or "")
    odd = await run_method(crit("app:odd"), {}, functions=reg)
    assert odd.error_category == "function"
    assert "'superb' is not a level" in (odd.error or "") and "'excellent'" in (odd.error or "")
    assert (await run_method(crit("app:num"), {}, functions=reg)).is_error


async def test_imports_need_the_allow_list() -> None:
    c = crit("json:dumps")  # a real module:function, returns text that is no level
    with pytest.raises(ConfigError) as info:
        await run_method(c, {}, functions=FunctionRegistry())
    msg = str(info.value)
    assert "'json:dumps'" in msg and "allow_imports=['json']" in msg and "register" in msg
    # allowed by module prefix: imported and called (its output is no level -> recorded error)
    report = await run_method(c, {}, functions=FunctionRegistry(allow_imports=["json"]))
    assert report.error_category == "function" and "'{}' is not a level" in (report.error or "")
    with pytest.raises(ConfigError, match="may not be imported"):
        await run_method(
            crit("jsonx.evil:f"), {}, functions=FunctionRegistry(allow_imports=["json"])
        )
    with pytest.raises(ConfigError, match="could not be imported"):
        await run_method(
            crit("json.nothere:f"), {}, functions=FunctionRegistry(allow_imports=["json"])
        )


async def test_unknown_names_and_reserved_prefix() -> None:
    reg = FunctionRegistry({"count_questions": count_level})
    with pytest.raises(ConfigError, match="did you mean 'count_questions'"):
        await run_method(crit("count_question"), {}, functions=reg)
    with pytest.raises(ConfigError, match="reserved"):
        reg.register("rubricjudge.meta:mine", count_level)
    with pytest.raises(ConfigError, match="llm_decode|graded by an LLM"):
        await run_method(Criterion(requirement="Is polite to the user"), "x")
