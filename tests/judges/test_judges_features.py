"""A judge's hidden state at the decision (for probes) through the cache and the run store."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rubricjudge._judges._base import Decision, JudgeConfig, JudgeRequest, JudgeResponse
from rubricjudge._judges._reliable import Provider, ReliableJudge
from rubricjudge._runs._store import response_from_json, response_to_json

VEC = bytes(range(256)) * 12  # 3,072 bytes: 1,536 float16 numbers


class HiddenStateJudge:
    """A judge that, like the local one, gives its hidden state only when asked."""

    name = "hidden/test"

    def __init__(self) -> None:
        self.calls: list[JudgeRequest] = []
        self.provider = Provider(backend="hidden", model="m", key="hidden|", identity={})

    async def judge(self, request: JudgeRequest) -> JudgeResponse:
        self.calls.append(request)
        return JudgeResponse(
            data={"answer": "yes"},
            raw_text='{"answer": "yes"}',
            probabilities={"yes": 0.7, "no": 0.3},
            features=VEC if request.features else None,
        )


def ask(features: bool) -> JudgeRequest:
    return JudgeRequest(
        system="s",
        user="u",
        schema={"type": "object", "properties": {"answer": {"enum": ["yes", "no"]}}},
        decision=Decision("answer", ("yes", "no")),
        features=features,
    )


async def test_the_cache_keeps_features_and_never_answers_for_them_without(
    tmp_path: Path,
) -> None:
    inner = HiddenStateJudge()
    config = JudgeConfig(cache=str(tmp_path / "c.sqlite3"))
    judge = ReliableJudge(inner, config, inner.provider)
    plain = await judge.judge(ask(False))
    assert plain.features is None
    # an answer without features is not one with them: asked again, and stored apart
    first = await judge.judge(ask(True))
    assert len(inner.calls) == 2 and first.features == VEC and not first.cached
    again = ReliableJudge(inner, config, inner.provider)  # as a new process would
    replay = await again.judge(ask(True))
    assert replay.cached and replay.features == VEC and len(inner.calls) == 2
    assert (await again.judge(ask(False))).features is None


def test_a_run_store_replays_the_features_it_recorded() -> None:
    response = JudgeResponse(data={"answer": "no"}, raw_text="{}", features=VEC)
    back = response_from_json(response_to_json(response))
    assert back.features == VEC and back.cached
    none = response_from_json(response_to_json(dataclasses.replace(response, features=None)))
    assert none.features is None
