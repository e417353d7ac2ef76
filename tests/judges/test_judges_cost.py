"""Cost in USD: the genai-prices table, user overrides, unknown stays unknown."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rubricjudge._errors import ConfigError
from rubricjudge._judges._base import JudgeConfig
from rubricjudge._judges._cost import cost_of
from rubricjudge._judges._openai import OpenAIJudge
from rubricjudge._model._reports import TokenUsage
from tests.support.chat_server import ChatServer, Reply
from tests.support.judge_helpers import openai_judge, request


def usage(prompt: int, completion: int, cached: int = 0) -> TokenUsage:
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        cache_read_input_tokens=cached,
    )


def test_table_price_of_a_known_model_is_linear_in_tokens() -> None:
    pytest.importorskip("genai_prices")
    one = cost_of(usage(1000, 500), provider="openai", model="gpt-4.1-mini")
    two = cost_of(usage(2000, 1000), provider="openai", model="gpt-4.1-mini")
    assert one is not None and one > 0
    assert two == pytest.approx(2 * one)
    out_only = cost_of(usage(0, 500), provider="openai", model="gpt-4.1-mini")
    assert out_only is not None and 0 < out_only < one


def test_cached_input_is_cheaper_in_the_table() -> None:
    pytest.importorskip("genai_prices")
    fresh = cost_of(usage(1000, 0), provider="openai", model="gpt-4.1-mini")
    cached = cost_of(usage(1000, 0, cached=800), provider="openai", model="gpt-4.1-mini")
    assert fresh is not None and cached is not None and cached < fresh


def test_unknown_model_or_usage_is_none_not_zero() -> None:
    assert cost_of(usage(10, 10), provider="openai", model="no-such-model-xyz") is None
    assert cost_of(usage(10, 10), provider=None, model="m", api_url="http://127.0.0.1:1/v1") is None
    assert cost_of(None, provider="openai", model="gpt-4.1-mini") is None


def test_user_prices_override_the_table() -> None:
    prices = {"input": 3.0, "output": 15.0, "cached_input": 0.3}
    got = cost_of(usage(1000, 200, cached=400), provider="openai", model="x", prices=prices)
    assert got == pytest.approx((600 * 3.0 + 400 * 0.3 + 200 * 15.0) / 1e6)


@pytest.mark.parametrize(
    "prices",
    [{"input": 1.0}, {"input": 1.0, "output": -1.0}, {"input": 1, "output": 1, "cache": 1}],
)
def test_bad_prices_are_config_errors(chat_server: ChatServer, prices: dict[str, float]) -> None:
    with pytest.raises(ConfigError, match="prices"):
        openai_judge(chat_server, prices=prices)


async def test_local_server_cost_is_unknown_without_prices(chat_server: ChatServer) -> None:
    response = await openai_judge(chat_server, "gpt-4.1-mini").judge(request())
    assert response.usage is not None and response.cost is None


def test_a_server_on_this_machine_is_unknown_without_loading_the_table() -> None:
    # the price table takes a process about 50 ms to load, and lists no local server
    code = (
        "import sys\n"
        "from rubricjudge._judges._cost import cost_of\n"
        "from rubricjudge._model._reports import TokenUsage\n"
        "u = TokenUsage(prompt_tokens=10, completion_tokens=5, total_tokens=15)\n"
        "for url in ('http://127.0.0.1:8000/v1', 'http://localhost:4000', 'http://[::1]:1/v1'):\n"
        "    assert cost_of(u, provider=None, model='gpt-4o', api_url=url) is None, url\n"
        "assert cost_of(u, provider=None, model='m', api_url='http://127.0.0.1:1',\n"
        "               prices={'input': 1.0, 'output': 2.0}) == 2e-05\n"
        "print('genai_prices' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_cost_from_user_prices_through_the_server(chat_server: ChatServer) -> None:
    chat_server.script(Reply.json({"verdict": "MET", "reason": ""}, usage=(1200, 80)))
    judge = openai_judge(chat_server, prices={"input": 0.4, "output": 1.6})
    response = await judge.judge(request())
    assert response.cost == pytest.approx((1200 * 0.4 + 80 * 1.6) / 1e6)


async def test_missing_usage_means_unknown_cost(chat_server: ChatServer) -> None:
    chat_server.script(Reply.json({"verdict": "MET", "reason": ""}, usage=None))
    judge = openai_judge(chat_server, prices={"input": 0.4, "output": 1.6})
    response = await judge.judge(request())
    assert response.usage is None and response.cost is None


def test_official_endpoint_prices_by_provider() -> None:
    provider = OpenAIJudge("gpt-4.1-mini", JudgeConfig(api_key="k")).provider
    assert (provider.price_provider, provider.price_url) == ("openai", None)
    routed = OpenAIJudge("m", JudgeConfig(base_url="https://openrouter.ai/api/v1")).provider
    assert (routed.price_provider, routed.price_url) == (None, "https://openrouter.ai/api/v1")
