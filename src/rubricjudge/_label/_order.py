"""Which item to label next: ``uncertain``, ``stratified`` or ``random``.

* ``uncertain`` (needs a run whose judge gave confidences): the judge's answers are
  put in piles by criterion and by what the judge answered (``correct``/MET,
  ``correct``/UNMET, ...), each pile least sure first; the order takes one answer
  from each pile in turn, the least sure of them first, and offers its item. So the
  first item is the one the judge was least sure of, and within a few items every
  criterion and both of the judge's answers have come up: a calibration needs
  labels of both kinds. Every other item is drawn at random instead, so that the
  labels also stay a fair sample: fitted on the least sure answers alone, a
  calibration learnt their slant and helped far less on the other answers.
* ``stratified``: items in turn from each stratum — the question an item answers
  (its query) and, with a run, the band of the judge's score (quarters of [0, 1]) —
  shuffled within each stratum: early labels cover every question and every kind
  of answer.
* ``random``: a shuffle. The sample the agreement figures of ``metrics`` are
  honest for: items chosen for being hard or for their kind are not a fair sample.

Every order is fixed by ``seed``, so a restart continues in the same order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .._errors import ConfigError
from ._judged import Judged

__all__ = ["ORDERS", "order_items"]

ORDERS = ("uncertain", "stratified", "random")


def _shuffled(indexes: Sequence[int], seed: int) -> list[int]:
    out = list(indexes)
    random.Random(seed).shuffle(out)
    return out


def _uncertain(judged: Sequence[dict[str, Judged]], seed: int) -> list[int]:
    piles: dict[tuple[str, str], list[tuple[float, int]]] = {}
    for i, answers in enumerate(judged):
        for name, j in answers.items():
            if j.confidence is not None:
                piles.setdefault((name, j.answer), []).append((j.confidence, i))
    if not piles:
        raise ConfigError(
            "--order uncertain needs a run whose judge gave confidences (token "
            "probabilities), and the judge of --run-dir gave none: grade with a judge "
            "that reports them (local, or an OpenAI-compatible server with logprobs), "
            "or use --order stratified or random"
        )
    for pile in piles.values():
        pile.sort()
    order: list[int] = []
    seen: set[int] = set()
    depth = 0
    while True:
        heads = [pile[depth] for pile in piles.values() if depth < len(pile)]
        if not heads:
            break
        for _, i in sorted(heads):  # this round's answers, least sure first
            if i not in seen:
                seen.add(i)
                order.append(i)
        depth += 1
    rest = [i for i in range(len(judged)) if i not in seen]
    order += _shuffled(rest, seed)
    # every other item is drawn at random: a calibration fitted on the hardest answers
    # alone learns their slant, not the judge's (measured: docs/labelling.md)
    fair = _shuffled(range(len(judged)), seed + 1)
    out: list[int] = []
    taken: set[int] = set()
    for pair in zip(order, fair, strict=True):
        for i in pair:
            if i not in taken:
                taken.add(i)
                out.append(i)
    return out


def _score_band(score: float | None) -> int:
    return -1 if score is None else min(max(int(score * 4), 0), 3)


def _stratified(dataset: Any, scores: Sequence[float | None], seed: int) -> list[int]:
    strata: dict[tuple[str, int], list[int]] = {}
    for i in range(len(dataset.items)):
        band = _score_band(scores[i] if i < len(scores) else None)
        strata.setdefault((dataset.get_item_query(i), band), []).append(i)
    rng = random.Random(seed)
    piles = [_shuffled(members, rng.randrange(1 << 30)) for _, members in sorted(strata.items())]
    rng.shuffle(piles)
    order: list[int] = []
    for depth in range(max((len(p) for p in piles), default=0)):
        order.extend(p[depth] for p in piles if depth < len(p))
    return order


def order_items(
    order: str,
    dataset: Any,
    judged: Sequence[dict[str, Judged]] | None,
    scores: Sequence[float | None] | None = None,
    *,
    seed: int = 0,
) -> list[int]:
    """Every item index of ``dataset``, in the order they are offered.

    Raises:
        ConfigError: ``uncertain`` without a run, or with a judge that gave no confidences.
    """
    if order not in ORDERS:
        raise ConfigError(f"--order {order!r} is not one of {', '.join(ORDERS)}")
    n = len(dataset.items)
    if order == "random":
        return _shuffled(range(n), seed)
    if order == "stratified":
        return _stratified(dataset, scores or [], seed)
    if judged is None:
        raise ConfigError(
            "--order uncertain needs --run-dir: the run whose judge's confidences say "
            "which answers it is least sure of (or use --order stratified or random)"
        )
    return _uncertain(judged, seed)
