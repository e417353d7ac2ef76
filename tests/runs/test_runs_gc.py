"""The collector's threshold during a run: raised while it goes, the caller's put back."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._model._rubric import Criterion, Rubric
from rubricjudge._runs._evaluate import evaluate
from rubricjudge._runs._gc import RUN_THRESHOLD, fewer_collections


@pytest.fixture(autouse=True)
def _threshold() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


def test_raised_inside_and_put_back_after() -> None:
    gc.set_threshold(700, 10, 10)
    with fewer_collections():
        assert gc.get_threshold() == (RUN_THRESHOLD, 10, 10)
        with fewer_collections():  # a nested run changes nothing more
            assert gc.get_threshold() == (RUN_THRESHOLD, 10, 10)
        assert gc.get_threshold() == (RUN_THRESHOLD, 10, 10)  # the outer run still goes
    assert gc.get_threshold() == (700, 10, 10)


def test_put_back_when_the_run_fails() -> None:
    gc.set_threshold(500, 7, 3)
    with pytest.raises(RuntimeError), fewer_collections():
        raise RuntimeError("boom")
    assert gc.get_threshold() == (500, 7, 3)


@pytest.mark.parametrize("mine", [(0, 10, 10), (50_000, 10, 10)])
def test_an_off_or_higher_threshold_is_left_alone(mine: tuple[int, int, int]) -> None:
    gc.set_threshold(*mine)
    with fewer_collections():
        assert gc.get_threshold() == mine
    assert gc.get_threshold() == mine


def test_a_threshold_the_caller_changes_during_the_run_stays_theirs() -> None:
    gc.set_threshold(700, 10, 10)
    with fewer_collections():
        gc.set_threshold(2_000, 10, 10)
    assert gc.get_threshold() == (2_000, 10, 10)


async def test_evaluate_runs_with_the_raised_threshold() -> None:
    seen: list[int] = []

    def reply(request: JudgeRequest) -> Any:
        seen.append(gc.get_threshold()[0])
        return {"reason": "r", "answer": "yes"}

    gc.set_threshold(700, 10, 10)
    rubric = Rubric([Criterion(name="c", requirement="It is an answer.")])
    dataset = RubricDataset(
        prompt="p", rubric=rubric, items=[DataItem(submission=f"a {i}") for i in range(3)]
    )
    result = await evaluate(dataset, CriterionGrader(judge=FakeJudge(default=reply)))
    assert result.summary.items_graded == 3
    assert seen == [RUN_THRESHOLD] * 3
    assert gc.get_threshold() == (700, 10, 10)
