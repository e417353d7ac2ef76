"""The built-in judge backends, registered by prefix; heavy SDKs load lazily."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._base import Judge, JudgeConfig

__all__ = ["register_all"]


def _fake(model: str, config: JudgeConfig) -> Judge:
    from ._fake import FakeJudge

    return FakeJudge(name=f"fake/{model}" if model else "fake")


def register_all(register: Callable[[str, Callable[[str, JudgeConfig], Any]], None]) -> None:
    """Register every built-in backend with ``register(prefix, factory)``."""
    register("fake", _fake)
