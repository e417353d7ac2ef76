"""The built-in judge backends, registered by prefix; heavy SDKs load lazily."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._base import Judge, JudgeConfig

__all__ = ["register_all"]


def _fake(model: str, config: JudgeConfig) -> Judge:
    from ._fake import FakeJudge

    return FakeJudge(name=f"fake/{model}" if model else "fake")


def _openai(model: str, config: JudgeConfig) -> Judge:
    from ._openai import OpenAIJudge

    return OpenAIJudge(model, config)


def _local(model: str, config: JudgeConfig) -> Judge:
    from ._local import LocalJudge

    return LocalJudge(model, config)


def _anthropic(model: str, config: JudgeConfig) -> Judge:
    from ._anthropic import AnthropicJudge

    return AnthropicJudge(model, config)


def _litellm(model: str, config: JudgeConfig) -> Judge:
    from ._litellm import LiteLLMJudge

    return LiteLLMJudge(model, config)


def register_all(register: Callable[[str, Callable[[str, JudgeConfig], Any]], None]) -> None:
    """Register every built-in backend with ``register(prefix, factory)``."""
    register("fake", _fake)
    register("openai", _openai)
    register("local", _local)
    register("anthropic", _anthropic)
    register("litellm", _litellm)
