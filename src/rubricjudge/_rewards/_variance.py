"""How much a rubric's reward moves when the same items are judged again.

:func:`compute_reward_variance` grades each item with every judgment repeated
(``repeats`` times; see ``_graders._repeats`` for what varies) and reports, as
autorubric's ``compute_reward_variance`` does, each criterion's verdict variance:
the sample variance of its value (1 for MET, 0 for UNMET, an option's value, a
place on a scale) over all (item, repeat) pairs, CANNOT_ASSESS and failed repeats
left out, 0.0 with fewer than two values. Beside it: each criterion's mean flip
rate, and the reward's own spread, the score each repeat alone would have given
an item (its answers on every criterion), whose population variance is averaged
over the items.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .._aio import gather_all
from .._errors import ConfigError
from .._graders._criterion import CriterionGrader
from .._model._rubric import Criterion, Rubric
from .._model._scoring import leaf_reports
from .._model._verdicts import parse_verdict

__all__ = ["RewardVariance", "compute_reward_variance"]


class RewardVariance(BaseModel):
    """Verdict variance per criterion and the reward's variance across repeats."""

    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")

    items: int
    repeats: int
    criteria: dict[str, float] = Field(default_factory=dict)
    flip_rates: dict[str, float] = Field(default_factory=dict)
    score_variance: float | None = None
    item_score_variances: list[float | None] = Field(default_factory=list)


def _value(criterion: Criterion, answer: str | None) -> float | None:
    if answer is None or answer == "CANNOT_ASSESS":
        return None
    try:
        return parse_verdict(criterion, answer).score_value
    except ValueError:
        return None


async def compute_reward_variance(
    rubric: Rubric,
    items: Sequence[Any],
    *,
    grader: CriterionGrader | None = None,
    judge: Any = None,
    repeats: int = 3,
    query: str | None = None,
) -> RewardVariance:
    """Grade ``items`` with every judgment asked ``repeats`` times; measure the spread.

    Args:
        rubric: the rubric.
        items: the submissions (text or ``{"thinking", "output"}``).
        grader: a :class:`CriterionGrader` whose ``repeats`` is at least 2 (default:
            one built with ``judge`` and ``repeats``).
        judge: the judge of the grader built here (default ``"local"``).
        repeats: how often each judgment is asked when the grader is built here.
        query: the request the items answer, if any.

    Raises:
        ConfigError: a grader that does not repeat, or fewer than 2 repeats.
    """
    if grader is None:
        if repeats < 2:
            raise ConfigError(f"repeats {repeats!r} must be at least 2 to measure a variance")
        grader = CriterionGrader(judge, repeats=repeats)
    if grader.repeats.n < 2:
        raise ConfigError("the grader asks each judgment once; give it repeats=2 or more")
    reports = await gather_all(
        [
            grader.grade(rubric, item, query=query, item_id=f"item {i}")
            for i, item in enumerate(items)
        ]
    )
    n = grader.repeats.n
    values: dict[str, list[float]] = {}
    flips: dict[str, list[float]] = {}
    item_vars: list[float | None] = []
    for report in reports:
        leaves = list(leaf_reports(report.report or []))
        per_repeat: list[list[str]] = [[] for _ in range(n)]
        for pos, leaf in enumerate(leaves):
            key = leaf.key or f"#{pos}"
            st = leaf.stability
            answers = st.answers[:n] if st is not None else [None] * n
            if st is not None and st.flip_rate is not None:
                flips.setdefault(key, []).append(st.flip_rate)
            for k in range(n):
                answer = answers[k] if k < len(answers) else None
                v = _value(leaf.criterion, answer)
                if v is not None:
                    values.setdefault(key, []).append(v)
                per_repeat[k].append(answer if answer is not None else "CANNOT_ASSESS")
        scores = [rubric.compute_score(answers) for answers in per_repeat] if leaves else []
        known = [s for s in scores if s is not None]
        item_vars.append(statistics.pvariance(known) if len(known) > 1 else None)
    keys = [leaf.key or f"#{i}" for i, leaf in enumerate(rubric.leaves())]
    measured = [v for v in item_vars if v is not None]
    return RewardVariance(
        items=len(items),
        repeats=n,
        criteria={
            k: statistics.variance(values[k]) if len(values.get(k, [])) > 1 else 0.0 for k in keys
        },
        flip_rates={k: statistics.fmean(v) for k, v in flips.items()},
        score_variance=statistics.fmean(measured) if measured else None,
        item_score_variances=item_vars,
    )
