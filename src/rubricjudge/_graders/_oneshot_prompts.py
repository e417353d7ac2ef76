"""The prompt and reply schema that ask every criterion in one call (one-shot grader).

Each criterion is one numbered line after the shared prefix (``_prompts``); the
reply is an object keyed by number, each value a per-criterion reply.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._model._rubric import Criterion
from ._criterion_prompts import (
    criterion_schema,
    examples_line,
    option_line,
    scale_words,
    shown_options,
)

__all__ = ["oneshot_prompt", "oneshot_schema"]


def _oneshot_line(
    n: int, criterion: Criterion, order: Sequence[int] | None, labels: Sequence[str | None]
) -> str:
    req = " ".join(criterion.requirement.split())
    shown = shown_options(criterion, order) if criterion.is_multi_choice else []
    examples = examples_line(labels, criterion, shown).strip()
    tail = f" [{examples}]" if examples else ""
    if criterion.is_multi_choice:
        opts = "; ".join(f"{k}) {option_line(criterion, i)}" for k, i in enumerate(shown, 1))
        return f"{n}. Question: {req} Options: {opts}. Answer with an option number.{tail}"
    if criterion.scale is not None:
        return (
            f"{n}. Criterion: {req} Score it with {scale_words(criterion)} "
            f"({criterion.scale.max:g} if the submission does it fully).{tail}"
        )
    return f"{n}. Statement: {req}{tail}"


def oneshot_prompt(
    criteria: Sequence[tuple[int, Criterion, Sequence[int] | None]],
    example_labels: Sequence[Sequence[str | None]] = (),
) -> str:
    """Write the criteria part of a one-shot prompt from (number, criterion, order).

    ``example_labels[n - 1]`` holds the example labels of criterion number ``n``.
    """
    lines = "\n".join(
        _oneshot_line(n, c, order, example_labels[n - 1] if len(example_labels) >= n else ())
        for n, c, order in criteria
    )
    return (
        f"Statements and questions about the submission:\n{lines}\n"
        'For each statement reply {"reason": "<one short sentence>", "answer": "yes" | "no"}: '
        "yes if the statement is true of the submission, in any wording. For each question reply "
        '{"reason": ..., "option": <number>}. '
        + (
            'For each criterion to score reply {"reason": ..., "score": <number>}. '
            if any(c.is_scored_on_scale for _, c, _ in criteria)
            else ""
        )
        + 'Reply {"1": {...}, "2": {...}, ...}'
    )


def oneshot_schema(
    criteria: Sequence[tuple[int, Criterion, Sequence[int] | None]],
) -> dict[str, Any]:
    """JSON Schema of a one-shot reply: one object per criterion number."""
    props = {str(n): criterion_schema(c) for n, c, _ in criteria}
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }
