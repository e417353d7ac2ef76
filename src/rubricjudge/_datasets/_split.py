"""Train/test splits stratified per criterion.

Joint strata (one per combination of labels over all criteria) are nearly all
singletons once a rubric has more than a few criteria, so the split balances each
(criterion position, label) pair on its own. It minimises the squared distance
between the training side's count of every pair and its pro-rata target,
``count * n_train / n``: a greedy pass places items (rarest pairs first) where
they reduce the remaining deficit most, then random train/test swaps that lower
the distance polish the result. The test side is balanced too, since its counts
are the totals minus the training counts.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

__all__ = ["stratified_split"]

Key = tuple[int, str]
_SWAP_TRIES_PER_ITEM = 40  # bounds the polish at O(n) swap attempts


def _greedy(
    keys: list[list[Key]], n_train: int, target: dict[Key, float], rng: random.Random
) -> set[int]:
    n = len(keys)
    total = Counter(k for row in keys for k in row)
    want_train = dict(target)
    want_test = {k: total[k] - t for k, t in target.items()}
    order = list(range(n))
    rng.shuffle(order)
    order.sort(key=lambda i: min((total[k] for k in keys[i]), default=n))
    train: set[int] = set()
    room_train, room_test = n_train, n - n_train
    for i in order:
        if room_test == 0 or room_train == 0:
            to_train = room_test == 0
        else:
            # drop in squared deficit from adding the item to each side: sum of (2d - 1)
            gain_train = sum(2 * want_train[k] - 1 for k in keys[i])
            gain_test = sum(2 * want_test[k] - 1 for k in keys[i])
            if gain_train != gain_test:
                to_train = gain_train > gain_test
            else:
                to_train = rng.random() < room_train / (room_train + room_test)
        side = want_train if to_train else want_test
        for k in keys[i]:
            side[k] -= 1
        if to_train:
            train.add(i)
            room_train -= 1
        else:
            room_test -= 1
    return train


def _polish(
    keys: list[list[Key]], train: set[int], target: dict[Key, float], rng: random.Random
) -> None:
    n = len(keys)
    count = Counter(k for i in train for k in keys[i])
    inside, outside = sorted(train), [i for i in range(n) if i not in train]
    if not inside or not outside:
        return
    for _ in range(_SWAP_TRIES_PER_ITEM * n):
        a = rng.randrange(len(inside))
        b = rng.randrange(len(outside))
        ia, ib = inside[a], outside[b]
        change: Counter[Key] = Counter()
        for k in keys[ia]:
            change[k] -= 1
        for k in keys[ib]:
            change[k] += 1
        delta = sum(
            (count[k] + d - target[k]) ** 2 - (count[k] - target[k]) ** 2
            for k, d in change.items()
            if d
        )
        if delta < -1e-9:
            count.update(change)
            inside[a], outside[b] = ib, ia
    train.clear()
    train.update(inside)


def stratified_split(labels: Sequence[Sequence[str]], n_train: int, rng: random.Random) -> set[int]:
    """Return the indices of the training items.

    Args:
        labels: Per item, its ground-truth label at each criterion position.
        n_train: How many items go to training (0..len(labels)).
        rng: Source of randomness for the order, ties and swaps.
    """
    n = len(labels)
    keys = [[(pos, value) for pos, value in enumerate(row)] for row in labels]
    total = Counter(k for row in keys for k in row)
    share = n_train / n if n else 0.0
    target = {k: c * share for k, c in total.items()}
    train = _greedy(keys, n_train, target, rng)
    _polish(keys, train, target, rng)
    return train
