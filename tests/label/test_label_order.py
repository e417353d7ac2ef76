"""Which item ``rubricjudge label`` offers next: the orders on their own, without a server."""

from __future__ import annotations

import random

import pytest

from rubricjudge import Criterion, Rubric, RubricDataset
from rubricjudge._errors import ConfigError
from rubricjudge._label._judged import Judged
from rubricjudge._label._order import order_items


def dataset(n: int, queries: int = 1) -> RubricDataset:
    rubric = Rubric([Criterion(name=k, weight=1, requirement=f"Does {k}") for k in ("a", "b")])
    ds = RubricDataset(prompt="p", rubric=rubric)
    for i in range(n):
        ds.add_item(submission=f"s{i}", id=f"i{i}", query=f"q{i % queries}")
    return ds


def judged(n: int, seed: int = 3) -> list[dict[str, Judged]]:
    rng = random.Random(seed)
    return [
        {k: Judged(rng.choice(["MET", "UNMET"]), rng.uniform(0.5, 1.0), "") for k in ("a", "b")}
        for _ in range(n)
    ]


def test_uncertain_puts_the_least_sure_first_and_takes_turns_with_random_picks() -> None:
    j = judged(40)
    order = order_items("uncertain", dataset(40), j, seed=0)
    assert sorted(order) == list(range(40))
    conf = [min(x.confidence for x in a.values() if x.confidence is not None) for a in j]
    assert order[0] == min(range(40), key=lambda i: conf[i])
    # the piles (criterion x the judge's answer) all come up within the first items
    piles = {(k, j[i][k].answer) for i in order[:8] for k in ("a", "b")}
    assert piles == {(k, v) for k in ("a", "b") for v in ("MET", "UNMET")}
    # the least sure half of the items is offered before the surest half, on average
    first, last = order[:20], order[20:]
    assert sum(conf[i] for i in first) / 20 < sum(conf[i] for i in last) / 20
    assert order == order_items("uncertain", dataset(40), j, seed=0)  # a restart: the same


def test_uncertain_needs_a_run_with_confidences() -> None:
    with pytest.raises(ConfigError, match="needs --run-dir"):
        order_items("uncertain", dataset(3), None)
    blind = [{"a": Judged("MET", None, "")} for _ in range(3)]
    with pytest.raises(ConfigError, match="gave none"):
        order_items("uncertain", dataset(3), blind)


def test_stratified_takes_each_question_in_turn_and_random_is_a_seeded_shuffle() -> None:
    ds = dataset(12, queries=3)
    order = order_items("stratified", ds, None, seed=1)
    assert sorted(order) == list(range(12))
    assert len({ds.items[i].query for i in order[:3]}) == 3  # every question early
    shuffled = order_items("random", ds, None, seed=1)
    assert sorted(shuffled) == list(range(12)) and shuffled != list(range(12))
    assert shuffled == order_items("random", ds, None, seed=1)
    assert shuffled != order_items("random", ds, None, seed=2)
