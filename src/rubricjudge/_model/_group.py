"""What ranking a group of submissions produces: a reward and a rank for each.

A group is the submissions to one query (the rollouts of one prompt, in RL).
Submission ``i``'s reward is its win rate against the others of its group: the
share of them it ranks above, a tie counting half, so rewards lie in [0, 1] and
average 0.5 over a group. Its rank is 1 for the best, ties sharing the mean of the
ranks they span. A submission that could not be placed (every judge call about it
failed) has reward and rank None and is left out of the others' win rates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ._pairwise import Preference
from ._reports import EvaluationReport, TokenUsage

__all__ = ["GroupReport", "ListwiseAnswer", "TieBreak", "rank_by"]


class TieBreak(BaseModel):
    """A pairwise comparison between two submissions whose rubric scores tied."""

    model_config = ConfigDict(extra="forbid")

    i: int
    j: int
    preferred: Preference | None = None
    position_consistent: bool | None = None
    error: str | None = None


class ListwiseAnswer(BaseModel):
    """One listwise ranking: the order shown and the ranking the judge gave (best first).

    Both are lists of submission indices (0-based).
    """

    model_config = ConfigDict(extra="forbid")

    shown: list[int]
    ranking: list[int] | None = None
    error: str | None = None
    error_category: str | None = None


class GroupReport(BaseModel):
    """The result of ranking the submissions of one group.

    ``rewards[i]`` and ``ranks[i]`` belong to submission ``i``. With the
    ``criteria`` method ``scores`` holds each submission's rubric score, ``reports``
    its full report and ``tie_breaks`` the comparisons that ordered equal scores;
    with ``listwise``, ``listwise`` holds the rankings asked (in two orders).
    """

    model_config = ConfigDict(extra="forbid")

    kind: Literal["group"] = "group"
    id: str | None = None
    method: str = "criteria"
    rewards: list[float | None] = Field(default_factory=list)
    ranks: list[float | None] = Field(default_factory=list)
    scores: list[float | None] | None = None
    tie_breaks: list[TieBreak] | None = None
    listwise: list[ListwiseAnswer] | None = None
    reports: list[EvaluationReport] | None = None
    error: str | None = None
    error_count: int = 0
    judge_calls: int = 0
    cached_calls: int = 0
    token_usage: TokenUsage | None = None
    completion_cost: float | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    def to_jsonable(self) -> dict[str, Any]:
        """A JSON-ready dict with None fields left out (None rewards and ranks are kept)."""
        data = self.model_dump(mode="json", exclude_none=True)
        data["rewards"] = list(self.rewards)
        data["ranks"] = list(self.ranks)
        return data


def rank_by(keys: Sequence[Any | None]) -> tuple[list[float | None], list[float | None]]:
    """(rewards, ranks) from comparable keys, higher better; None keys are left out.

    A submission's reward is the share of the other placed submissions it beats, a
    tie counting half (0.5 when it is the only one placed); its rank is one more than
    the number that beat it plus half the number it ties with.
    """
    placed = [k for k in keys if k is not None]
    rewards: list[float | None] = []
    ranks: list[float | None] = []
    for k in keys:
        if k is None:
            rewards.append(None)
            ranks.append(None)
            continue
        above = sum(1 for o in placed if o > k)
        level = sum(1 for o in placed if o == k) - 1
        below = len(placed) - 1 - above - level
        rewards.append((below + 0.5 * level) / (len(placed) - 1) if len(placed) > 1 else 0.5)
        ranks.append(1.0 + above + 0.5 * level)
    return rewards, ranks
