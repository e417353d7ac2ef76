"""The prompt and reply schema that ask for one score out of 100 (holistic grader).

The rubric is shown as points out of 100 per criterion (:func:`rubric_points`, also
used by the pairwise and listwise prompts) after the shared prefix (``_prompts``).
"""

from __future__ import annotations

from typing import Any

from .._model._rubric import Criterion, Rubric
from ._prompts import REASON_SCHEMA

__all__ = ["holistic_prompt", "holistic_schema", "rubric_points"]


def _points(weight: float, total: float) -> str:
    return f"{min(100.0, 100.0 * abs(weight) / total):.0f}" if total > 0 else "0"


def _holistic_line(criterion: Criterion, total: float) -> str:
    req = " ".join(criterion.requirement.split())
    pts = _points(criterion.weight, total)
    if criterion.weight < 0:
        return f"- minus {pts} points if the submission does this (a fault): {req}"
    if criterion.is_multi_choice:
        opts = ", ".join(
            f"{o.label} {100 * o.value:.0f}%" for o in criterion.options or [] if not o.na
        )
        return f"- {pts} points: {req} (share of the points by answer: {opts})"
    if criterion.subcriteria:
        kids = "; ".join(" ".join(k.requirement.split()) for k in criterion.subcriteria)
        return f"- {pts} points: {req} (parts: {kids})"
    if criterion.is_scored_on_scale:
        return f"- {pts} points: {req} (a share of the points as far as the submission does it)"
    return f"- {pts} points: {req}"


def rubric_points(rubric: Rubric) -> str:
    """The rubric as lines of points out of 100, one per criterion (holistic prompts).

    Weights are shown as points out of 100 (a positive weight's share of the total
    positive weight; a penalty's weight on the same base), so a small judge cannot
    mistake the weights' own scale for the score's. A rubric of penalties only
    shares the 100 points among its penalties.
    """
    positive = sum(c.weight for c in rubric.criteria if c.weight > 0)
    total = positive if positive > 0 else sum(abs(c.weight) for c in rubric.criteria)
    return "\n".join(_holistic_line(c, total) for c in rubric.criteria)


def holistic_prompt(rubric: Rubric) -> str:
    """Write the rubric part of a holistic prompt: each criterion's share of 100 points.

    See :func:`rubric_points`; a rubric of penalties only starts from 100.
    """
    positive = sum(c.weight for c in rubric.criteria if c.weight > 0)
    lines = rubric_points(rubric)
    how = (
        "Add the points of the criteria the submission meets and subtract the faults it has."
        if positive > 0
        else "Start from 100 and subtract the faults the submission has."
    )
    return (
        f"Rubric (out of 100 points):\n{lines}\n{how} The score is that total, from 0 to 100.\n"
        'Reply {"reason": "<one or two sentences, at most 40 words>", "score": <0 to 100>}'
    )


def holistic_schema() -> dict[str, Any]:
    """JSON Schema of a holistic reply."""
    return {
        "type": "object",
        "properties": {
            "reason": REASON_SCHEMA,
            "score": {"type": "number", "minimum": 0, "maximum": 100},
        },
        "required": ["reason", "score"],
        "additionalProperties": False,
    }
