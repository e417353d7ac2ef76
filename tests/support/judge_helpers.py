"""Helpers for the judge tests: a verdict schema and a judge aimed at the chat server."""

from __future__ import annotations

import asyncio
from typing import Any

from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._registry import get_judge
from rubricjudge._judges._reliable import ReliableJudge
from tests.support.chat_server import ChatServer

SECRET = "sk-test-SECRET-do-not-store-123"

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["MET", "UNMET", "CANNOT_ASSESS"]},
        "reason": {"type": "string"},
    },
    "required": ["verdict", "reason"],
    "additionalProperties": False,
}


def request(user: str = "Is the sky blue?", **kw: Any) -> JudgeRequest:
    return JudgeRequest(system="You are a strict grader.", user=user, schema=SCHEMA, **kw)


class SleepLog:
    """Records the waits the layer asks for and really sleeps (values are small)."""

    def __init__(self, cap: float = 0.05) -> None:
        self.waits: list[float] = []
        self.cap = cap

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(min(seconds, self.cap))


def openai_judge(server: ChatServer, model: str = "test-model", **options: Any) -> ReliableJudge:
    opts: dict[str, Any] = {
        "base_url": server.base_url,
        "api_key": SECRET,
        "cache": False,
        "timeout_s": 5.0,
    }
    opts.update(options)
    judge = get_judge(f"openai/{model}", **opts)
    assert isinstance(judge, ReliableJudge)
    judge.sleep = SleepLog()
    return judge


def waits(judge: ReliableJudge) -> list[float]:
    assert isinstance(judge.sleep, SleepLog)
    return judge.sleep.waits
