"""The optional ``litellm/<model>`` adapter: lazy import, install hint, request mapping."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from rubricjudge import ConfigError, JudgeError
from rubricjudge._judges._base import JudgeConfig, JudgeRequest
from rubricjudge._judges._registry import get_judge
from tests.support.litellm_stand_in import HAS_LITELLM, reply

SCHEMA = {"type": "object", "properties": {"verdict": {"type": "string"}}}


def test_import_rubricjudge_never_imports_optional_sdks() -> None:
    code = (
        "import sys, rubricjudge\n"
        "from rubricjudge._judges._registry import get_judge, judge_backends\n"
        "assert {'local', 'anthropic', 'litellm'} <= set(judge_backends())\n"
        "get_judge('fake')\n"
        "heavy = {'litellm', 'llama_cpp', 'anthropic'} & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.skipif(HAS_LITELLM, reason="litellm is installed")
def test_missing_extra_gives_the_install_hint() -> None:
    with pytest.raises(ConfigError, match=r"pip install 'rubricjudge\[litellm\]'"):
        get_judge("litellm/gemini/gemini-2.0-flash")


@pytest.mark.skipif(HAS_LITELLM, reason="the real litellm is installed")
async def test_adapter_maps_request_and_reply(stand_in: Any) -> None:
    from rubricjudge._judges._litellm import LiteLLMJudge

    lt = stand_in
    lt.SCRIPT[:] = [
        lt.BadRequestError("response_format json_schema is not supported"),
        reply('{"verdict": "MET"}'),
        lt.RateLimitError("slow down"),
    ]
    cfg = JudgeConfig(seed=3, extra_params={"top_p": 0.5})
    judge = LiteLLMJudge("gemini/gemini-2.0-flash", cfg)
    request = JudgeRequest(system="Grade.", user="Paris.", schema=SCHEMA)
    response = await judge.judge(request)
    assert response.data == {"verdict": "MET"} and response.model == "gemini-2.0-flash"
    assert response.usage is not None and response.usage.total_tokens == 15

    first, second = lt.CALLS
    assert first["response_format"]["type"] == "json_schema"
    assert first["num_retries"] == 0 and first["seed"] == 3 and first["top_p"] == 0.5
    assert first["temperature"] == 0.0 and first["model"] == "gemini/gemini-2.0-flash"
    assert second["response_format"] == {"type": "json_object"}
    assert '"verdict"' in second["messages"][0]["content"]  # the schema moved into the prompt

    with pytest.raises(JudgeError) as info:
        await judge.judge(request)
    assert info.value.category == "rate_limit"
    assert judge.provider.price_provider == "gemini"
