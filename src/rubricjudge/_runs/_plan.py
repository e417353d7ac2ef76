"""What a run would cost, counted without calling anything (``--dry-run``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .._graders._base import Grader
from .._graders._spec import completion_tokens
from .._judges._cost import estimate_cost

__all__ = ["RunEstimate", "estimate_run"]


@dataclass(frozen=True)
class RunEstimate:
    """Items, judge calls, tokens and the dollars of each judge (None: price unknown)."""

    items: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    costs: list[float | None]


def estimate_run(
    grader: Grader, work: Iterable[tuple[Any, ...]], judges: Sequence[str], kind: str
) -> RunEstimate:
    """Count what grading ``work`` would take; the tokens are shared evenly by ``judges``.

    ``work`` yields (rubric, submission, query, reference) tuples; ``kind`` is the
    grader kind (it sets the completion tokens expected per call).
    """
    calls = tokens = items = 0
    for rubric, submission, query, reference in work:
        plan = grader.plan(rubric, submission, query=query, reference_submission=reference)
        calls += plan.judge_calls
        tokens += plan.prompt_tokens
        items += 1
    completion = calls * completion_tokens(kind)
    n = len(judges)
    costs = [estimate_cost(str(j), tokens // n, completion // n) for j in judges]
    return RunEstimate(items, calls, tokens, completion, costs)
