"""The prompt and reply schema about one criterion (the per-criterion grader's call).

The criterion part follows the shared prefix (``_prompts``). A binary criterion is
asked as a statement to answer ``yes`` or ``no``. An error criterion (negative
weight) is asked the same way: is this fault true of the submission? Asked as
MET/UNMET, small judges read MET as "good" and marked errors MET when they found
none; ``yes`` (the fault is there) is mapped to MET, and MET/UNMET and the older
PRESENT/ABSENT replies are still understood.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from .._judges._base import Decision
from .._model._rubric import CalibrationExample, Criterion
from ._options import VerdictMethod
from ._prompts import reply_line, reply_schema

__all__ = [
    "ABSENT",
    "NO",
    "PRESENT",
    "UNSURE",
    "YES",
    "binary_answers",
    "calibration_examples",
    "criterion_decision",
    "criterion_prompt",
    "criterion_schema",
    "examples_line",
    "option_line",
    "scale_words",
    "shown_options",
]

YES, NO, UNSURE = "yes", "no", "cannot_assess"
"""The answers to a binary criterion: MET, UNMET and (when offered) CANNOT_ASSESS.

Asked as "is this statement true of the submission?", a penalty's ``yes`` means
its fault is present (MET), as the seeds define MET on a negative weight.
"""
PRESENT, ABSENT = "PRESENT", "ABSENT"
"""Older answers to an error criterion, still understood: PRESENT is MET, ABSENT UNMET."""


def shown_options(criterion: Criterion, order: Sequence[int] | None) -> list[int]:
    """Original option indices in the order they are shown (identity without ``order``)."""
    n = len(criterion.options or [])
    return list(order) if order is not None else list(range(n))


def option_line(criterion: Criterion, index: int) -> str:
    """One option as shown: its label, description and N/A note."""
    opt = (criterion.options or [])[index]
    text = opt.label
    if opt.description:
        text += f": {opt.description}"
    if opt.na:
        text += " (not applicable / cannot assess)"
    return text


_AS_ANSWER = {"MET": YES, "UNMET": NO, "CANNOT_ASSESS": UNSURE}


def examples_line(labels: Sequence[str | None], criterion: Criterion, shown: list[int]) -> str:
    """The graded examples' answers for this criterion, as the judge is asked to answer."""
    pairs = []
    for k, label in enumerate(labels, 1):
        if label is None:
            continue
        if criterion.is_multi_choice and label != "CANNOT_ASSESS":
            label = str(shown.index(criterion.find_option_by_label(label)) + 1)
        elif not criterion.is_multi_choice:
            label = _AS_ANSWER.get(label, label)
        pairs.append(f"example-{k}: {label}")
    return ("Graded examples: " + ", ".join(pairs) + "\n") if pairs else ""


def _short(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def calibration_examples(
    criterion: Criterion, max_examples: int | None = None
) -> list[tuple[str, CalibrationExample]]:
    """The criterion's scored examples to show, as (level, example) pairs.

    Levels take turns (the first example of each level, then the second ...), so
    a limit keeps both good and poor examples; ``None`` shows all, 0 none.
    """
    if not criterion.examples or max_examples == 0:
        return []
    queues = [[(level, ex) for ex in exs] for level, exs in criterion.examples.items()]
    picked: list[tuple[str, CalibrationExample]] = []
    depth = max((len(q) for q in queues), default=0)
    for k in range(depth):
        picked.extend(q[k] for q in queues if k < len(q))
    return picked if max_examples is None else picked[:max_examples]


def _calibration(criterion: Criterion, max_examples: int | None = None) -> str:
    lines = []
    for level, ex in calibration_examples(criterion, max_examples):
        score = f" (score {ex.score:g})" if ex.score is not None else ""
        why = f" Why: {_short(ex.explanation, 160)}" if ex.explanation else ""
        lines.append(f"- {level}{score}: {_short(ex.output, 200)}{why}")
    return ("Calibration:\n" + "\n".join(lines) + "\n") if lines else ""


def scale_words(criterion: Criterion) -> str:
    """What a number on the criterion's scale is, in words (``a whole number from 1 to 5``)."""
    scale = criterion.scale
    assert scale is not None
    kind = "a whole number" if scale.type == "discrete" else "a number"
    return f"{kind} from {scale.min:g} to {scale.max:g}"


def _scale_question(criterion: Criterion) -> str:
    scale = criterion.scale
    assert scale is not None
    return (
        f"How well does the submission do this? Score it with {scale_words(criterion)}: "
        f"{scale.min:g} if it does not do this at all, {scale.max:g} if it does it fully."
    )


def criterion_prompt(
    criterion: Criterion,
    *,
    order: Sequence[int] | None = None,
    example_labels: Sequence[str | None] = (),
    max_examples: int | None = None,
    method: VerdictMethod = "reason-first",
    offer_cannot_assess: bool = False,
    answer_order: Sequence[int] | None = None,
) -> str:
    """Write the criterion part of a per-criterion prompt (placed after the prefix).

    ``max_examples`` caps the criterion's calibration examples shown (None: all);
    ``method`` lays out the reply (see :data:`_options.VerdictMethod`). A binary criterion,
    penalties included, is asked as a statement about the submission to answer
    ``yes`` (MET: for a penalty, the fault is there) or ``no``; with
    ``offer_cannot_assess`` the judge may also answer ``cannot_assess``.
    ``answer_order`` shows a binary criterion's answers in another order (a
    permutation of their positions; repeats vary it, see ``_repeats``).
    """
    req = " ".join(criterion.requirement.split())
    if criterion.is_scored_on_scale:
        unsure = (
            f' Answer "{UNSURE}" instead only if the submission gives no way to tell.'
            if offer_cannot_assess
            else ""
        )
        number = "<number>" + (f' | "{UNSURE}"' if offer_cannot_assess else "")
        return (
            f"Criterion: {req}\n{_scale_question(criterion)}{unsure}\n"
            + _calibration(criterion, max_examples)
            + examples_line(example_labels, criterion, [])
            + reply_line("score", number, method)
        )
    if criterion.is_multi_choice:
        shown = shown_options(criterion, order)
        opts = "\n".join(f"{n}. {option_line(criterion, i)}" for n, i in enumerate(shown, 1))
        return (
            f"Question: {req}\nOptions:\n{opts}\n"
            + _calibration(criterion, max_examples)
            + examples_line(example_labels, criterion, shown)
            + "Pick the option that fits the submission best. "
            + reply_line("option", "<number>", method)
        )
    answers = " | ".join(f'"{v}"' for v in binary_answers(offer_cannot_assess, answer_order))
    unsure = (
        f" {UNSURE} only if the submission gives no way to tell." if offer_cannot_assess else ""
    )
    return (
        f"Statement about the submission: {req}\nIs this statement true of the submission? "
        f"Answer {YES} if the submission does this, in any wording; {NO} if it does not.{unsure}\n"
        + _calibration(criterion, max_examples)
        + examples_line(example_labels, criterion, [])
        + reply_line("answer", answers, method)
    )


def binary_answers(
    offer_cannot_assess: bool = False, answer_order: Sequence[int] | None = None
) -> tuple[str, ...]:
    """The answers to a binary criterion in the order shown (``answer_order`` permutes them)."""
    values = (YES, NO, UNSURE) if offer_cannot_assess else (YES, NO)
    if answer_order is None:
        return values
    return tuple(values[i] for i in answer_order)


def criterion_decision(criterion: Criterion, offer_cannot_assess: bool = False) -> Decision | None:
    """The reply field that decides ``criterion`` and its values, for token probabilities.

    None for a criterion scored on a scale: a number has no short list of answers.
    """
    if criterion.is_scored_on_scale:
        return None
    if criterion.is_multi_choice:
        return Decision("option", tuple(range(1, len(criterion.options or []) + 1)))
    return Decision("answer", (YES, NO, UNSURE) if offer_cannot_assess else (YES, NO))


def criterion_schema(
    criterion: Criterion,
    method: VerdictMethod = "reason-first",
    offer_cannot_assess: bool = False,
    answer_order: Sequence[int] | None = None,
) -> dict[str, Any]:
    """JSON Schema of the reply about one criterion, its keys in ``method``'s order.

    The same few schemas are asked for thousands of times in a run, so each is built
    once and shared (judges read it, never change it); backends that inspect a
    schema can then remember what they found by its identity. ``answer_order``
    lists a binary criterion's answers in the order shown (see :func:`criterion_prompt`).
    """
    if criterion.scale is not None:
        s = criterion.scale
        return _scale_schema_of(s.min, s.max, s.type, method, offer_cannot_assess)
    if criterion.is_multi_choice:
        return _schema_of("option", len(criterion.options or []), method)
    kind = "unsure" if offer_cannot_assess else "binary"
    if answer_order is None:
        return _schema_of(kind, 0, method)
    return _schema_of(kind, 0, method, binary_answers(offer_cannot_assess, answer_order))


@functools.lru_cache(maxsize=64)
def _scale_schema_of(
    low: float, high: float, kind: str, method: VerdictMethod, offer_cannot_assess: bool
) -> dict[str, Any]:
    number: dict[str, Any] = {
        "type": "integer" if kind == "discrete" else "number",
        "minimum": low,
        "maximum": high,
    }
    answer = (
        {"anyOf": [number, {"type": "string", "enum": [UNSURE]}]} if offer_cannot_assess else number
    )
    return reply_schema("score", answer, method)


@functools.lru_cache(maxsize=64)
def _schema_of(
    kind: str,
    options: int,
    method: VerdictMethod = "reason-first",
    shown: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    answer: dict[str, Any]
    if kind == "option":
        answer = {"type": "integer", "minimum": 1, "maximum": options}
        key = "option"
    else:
        values = list(shown or binary_answers(kind == "unsure"))
        answer = {"type": "string", "enum": values}
        key = "answer"
    return reply_schema(key, answer, method)
