"""What comparing two submissions produces: a preference per criterion and overall.

Every comparison is asked in both orders (``a`` shown first, then ``b`` shown
first). An order's answer is mapped back from the position the judge named to
``a``, ``b`` or ``tie``. When the two orders agree their answer counts; when they
disagree the criterion is a tie and ``position_consistent`` is False. A
comparison whose judge failed in either order is not compared (``preferred`` is
None, ``error`` says why) and is left out of the score, never guessed.

The score is in [-1, 1]: each compared criterion counts +1 when ``a`` is preferred,
-1 for ``b`` and 0 for a tie, weighted by the criterion's absolute weight (a
penalty's preferred answer is the one with less of its fault). ``preferred`` is
``a`` above 0, ``b`` below, ``tie`` at 0.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ._reports import TokenUsage
from ._stability import Stability

__all__ = [
    "CriterionPreference",
    "OrderAnswer",
    "PairwiseReport",
    "Preference",
    "Side",
]

Side = Literal["a", "b"]
Preference = Literal["a", "b", "tie"]


class OrderAnswer(BaseModel):
    """What the judge said in one order: which submission it preferred, how sure it was.

    ``first`` is the submission shown first; ``named`` the position the answer
    named (``1``: the one shown first; for a penalty, the one with more of the
    fault); ``preferred`` is that mapped back to ``a``/``b``/``tie`` (None when
    the call failed, ``error`` then says why). ``confidence`` is the probability of that answer and
    ``probabilities`` every answer's, keyed ``a``/``b``/``tie``, from the judge's
    token probabilities (None where the backend exposes none). ``votes`` holds each
    judge's answer in an ensemble; ``stability`` each repeat's with ``--repeats``.
    """

    model_config = ConfigDict(extra="forbid")

    first: Side
    named: Literal["1", "2", "tie"] | None = None
    preferred: Preference | None = None
    confidence: float | None = None
    probabilities: dict[str, float] | None = None
    reason: str = ""
    error: str | None = None
    error_category: str | None = None
    votes: dict[str, Preference | None] | None = None
    stability: Stability | None = None

    @property
    def named_first(self) -> bool | None:
        """True when the answer named the position shown first; None for a tie or failure."""
        if self.named is None or self.named == "tie":
            return None
        return self.named == "1"


class CriterionPreference(BaseModel):
    """One criterion compared in both orders.

    ``key`` is the criterion's id or name (``holistic`` for a holistic comparison
    of the whole rubric), ``weight`` its weight. ``preferred`` is None when the
    criterion could not be compared (``error`` says why).
    """

    model_config = ConfigDict(extra="forbid")

    key: str
    requirement: str
    weight: float
    preferred: Preference | None = None
    position_consistent: bool | None = None
    orders: list[OrderAnswer] = Field(default_factory=list)
    error: str | None = None
    error_category: str | None = None

    @property
    def flip_rate(self) -> float | None:
        """The mean flip rate of the orders' repeats (None without repeats)."""
        rates = [
            o.stability.flip_rate
            for o in self.orders
            if o.stability is not None and o.stability.flip_rate is not None
        ]
        return sum(rates) / len(rates) if rates else None


class PairwiseReport(BaseModel):
    """The result of comparing two submissions (``a`` and ``b``) against a rubric.

    ``score`` is in [-1, 1] (positive favours ``a``); ``preferred`` follows its
    sign; both are None when no criterion could be compared (``error`` says why).
    ``position_consistent`` is True when every compared criterion got the same
    answer in both orders. ``label`` is the human preference given with the pair,
    if any, kept for ``rubricjudge metrics``.
    """

    model_config = ConfigDict(extra="forbid")

    kind: Literal["pairwise"] = "pairwise"
    id: str | None = None
    preferred: Preference | None = None
    score: float | None = None
    position_consistent: bool | None = None
    mode: str = "per-criterion"
    criteria: list[CriterionPreference] = Field(default_factory=list)
    label: Preference | None = None
    error: str | None = None
    error_count: int = 0
    judge_calls: int = 0
    cached_calls: int = 0
    token_usage: TokenUsage | None = None
    completion_cost: float | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    def to_jsonable(self) -> dict[str, Any]:
        """A JSON-ready dict with None fields left out."""
        return self.model_dump(mode="json", exclude_none=True)
