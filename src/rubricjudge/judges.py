"""Judges: the one contract (:class:`Judge`), the registry of backends, and the built-in helpers."""

from __future__ import annotations

from ._judges._base import Judge, JudgeConfig, JudgeRequest, JudgeResponse
from ._judges._callable import CallableJudge
from ._judges._fake import FakeJudge
from ._judges._fleet import EndpointStats
from ._judges._registry import get_judge, register_judge
from ._judges._reliable import ReliableJudge

__all__ = [
    "CallableJudge",
    "EndpointStats",
    "FakeJudge",
    "Judge",
    "JudgeConfig",
    "JudgeRequest",
    "JudgeResponse",
    "ReliableJudge",
    "get_judge",
    "register_judge",
]
