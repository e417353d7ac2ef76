"""The paired test that decides whether a rewritten criterion agrees with labels more.

Both versions of a criterion are judged on the same held-out labelled items, so each
item gives a pair (was the original right, is the candidate right). Only the
discordant pairs carry information: ``b`` items the original got right and the
candidate wrong, ``c`` the other way. McNemar's exact test asks how likely ``c`` or
more of ``b + c`` discordant pairs favour the candidate when neither version is
better (each discordant pair a fair coin): the one-sided binomial tail.
"""

from __future__ import annotations

from math import comb

__all__ = ["TEST_NAME", "mcnemar_exact"]

TEST_NAME = "McNemar exact test (one-sided) on the held-out pairs"


def mcnemar_exact(b: int, c: int) -> float:
    """One-sided p-value that the candidate (``c`` wins) beats the original (``b`` wins).

    Args:
        b: discordant pairs the original got right and the candidate wrong.
        c: discordant pairs the candidate got right and the original wrong.

    Returns:
        ``P(X >= c)`` for ``X ~ Binomial(b + c, 1/2)``; 1.0 with no discordant pair.

    Raises:
        ValueError: a negative count.
    """
    if b < 0 or c < 0:
        raise ValueError(f"counts must be 0 or more, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(c, n + 1))
    return min(1.0, float(tail) / float(1 << n))
