"""with_changes: the value dataclasses.replace gives, without its cost."""

from __future__ import annotations

import dataclasses

import pytest

from rubricjudge._judges._base import JudgeResponse, with_changes
from rubricjudge._model._reports import TokenUsage


def _response() -> JudgeResponse:
    usage = TokenUsage(prompt_tokens=3, completion_tokens=2, total_tokens=5)
    return JudgeResponse(
        data={"verdict": "MET"}, raw_text="{}", usage=usage, latency_s=0.5, model="m"
    )


def test_same_value_as_replace_and_the_original_unchanged() -> None:
    r = _response()
    got = with_changes(r, cost=0.25, latency_s=1.5, queue_s=0.1, attempts=2)
    assert got == dataclasses.replace(r, cost=0.25, latency_s=1.5, queue_s=0.1, attempts=2)
    assert type(got) is JudgeResponse and got is not r
    assert (r.cost, r.latency_s, r.queue_s, r.attempts) == (None, 0.5, 0.0, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.cost = 1.0  # type: ignore[misc]


def test_an_unknown_field_is_refused_as_replace_refuses_it() -> None:
    with pytest.raises(TypeError):
        with_changes(_response(), verdict="MET")


def test_a_subclass_keeps_its_class() -> None:
    @dataclasses.dataclass(frozen=True)
    class Tagged(JudgeResponse):
        tag: str = ""

    r = Tagged(data={}, raw_text="", tag="t")
    got = with_changes(r, cost=1.0)
    assert type(got) is Tagged and got.tag == "t" and got.cost == 1.0
