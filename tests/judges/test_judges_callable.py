"""Judges made from generate_fn(system_prompt, user_prompt), sync or async."""

from __future__ import annotations

import asyncio
import threading

import pytest
from pydantic import BaseModel

from rubricjudge._errors import JudgeError
from rubricjudge._judges._callable import CallableJudge
from rubricjudge._judges._registry import get_judge
from tests.support.judge_helpers import request


class Verdict(BaseModel):
    verdict: str
    reason: str


async def test_sync_function_with_fenced_output_runs_off_the_loop() -> None:
    seen: list[tuple[str, str, bool]] = []
    loop_thread = threading.get_ident()

    def generate(system_prompt: str, user_prompt: str) -> str:
        seen.append((system_prompt, user_prompt, threading.get_ident() == loop_thread))
        return 'Here you go:\n```json\n{"verdict": "MET", "reason": "ok"}\n```'

    judge = get_judge(generate)
    response = await judge.judge(request("the user prompt"))
    assert response.data == {"verdict": "MET", "reason": "ok"}
    assert seen == [("You are a strict grader.", "the user prompt", False)]
    assert judge.name == "callable/generate"
    assert response.cost is None  # nothing known about what the function spent


async def test_async_function_returning_a_pydantic_model() -> None:
    async def generate(system_prompt: str, user_prompt: str) -> Verdict:
        await asyncio.sleep(0)
        return Verdict(verdict="UNMET", reason=user_prompt[:3])

    response = await get_judge(generate).judge(request("abcdef"))
    assert response.data == {"verdict": "UNMET", "reason": "abc"}


async def test_dict_and_async_callable_object() -> None:
    class Model:
        async def __call__(self, system_prompt: str, user_prompt: str) -> dict[str, str]:
            return {"verdict": "CANNOT_ASSESS", "reason": ""}

    response = await get_judge(Model()).judge(request())
    assert response.data["verdict"] == "CANNOT_ASSESS"


async def test_unparseable_text_is_reasked_then_typed() -> None:
    calls: list[str] = []

    def generate(system_prompt: str, user_prompt: str) -> str:
        calls.append(user_prompt)
        return "MET, I would say" if len(calls) < 3 else '{"verdict": "MET", "reason": ""}'

    response = await get_judge(generate, max_parse_retries=2).judge(request())
    assert response.attempts == 3 and len(calls) == 3
    calls.clear()
    with pytest.raises(JudgeError) as info:
        await get_judge(generate, max_parse_retries=1).judge(request())
    assert info.value.category == "parse" and info.value.attempts == 2


async def test_exceptions_become_function_errors_not_verdicts() -> None:
    def generate(system_prompt: str, user_prompt: str) -> str:
        raise RuntimeError("quota exhausted")

    with pytest.raises(JudgeError, match="quota exhausted") as info:
        await get_judge(generate).judge(request())
    assert info.value.category == "function" and info.value.attempts == 1


async def test_non_object_return_is_a_parse_error() -> None:
    with pytest.raises(JudgeError, match="return a string") as info:
        await CallableJudge(lambda s, u: 42).judge(request())
    assert info.value.category == "parse"


async def test_async_function_times_out() -> None:
    async def slow(system_prompt: str, user_prompt: str) -> str:
        await asyncio.sleep(5)
        return "{}"

    with pytest.raises(JudgeError) as info:
        await get_judge(slow, timeout_s=0.05, max_retries=0).judge(request())
    assert info.value.category == "timeout"


def test_sync_use_across_event_loops() -> None:
    judge = get_judge(lambda s, u: '{"verdict": "MET", "reason": ""}')
    for _ in range(2):
        assert asyncio.run(judge.judge(request())).data["verdict"] == "MET"
