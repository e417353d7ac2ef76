"""How a judgment held up when it was asked several times (``--repeats N``).

A grader asked to repeat each judgment N times varies the question (the
sampling temperature, or the order the allowed answers are shown in), takes
the most common answer and records here what each repeat said. The flip rate
is the share of the answered repeats that differ from the most common answer:
0 when every repeat agreed, 0.5 when two repeats split, at most 1 - 1/k with k
different answers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["Stability", "Variation", "flip_rate"]

Variation = Literal["temperature", "order"]
"""What changes between repeats: the sampling temperature (with a new seed per
repeat) or the order the allowed answers are shown in."""


def flip_rate(answers: Sequence[str | None]) -> float | None:
    """The share of the answers (failed ones left out) that differ from the most common one.

    None when fewer than two repeats answered: one answer cannot flip.
    """
    given = [a for a in answers if a is not None]
    if len(given) < 2:
        return None
    top = Counter(given).most_common(1)[0][1]
    return 1.0 - top / len(given)


class Stability(BaseModel):
    """What each of a judgment's repeats answered, and how often they flipped.

    ``answers`` holds each repeat's answer (``MET``/``UNMET``/``CANNOT_ASSESS``, an
    option label, a number on a scale as text, or ``a``/``b``/``tie`` for a
    comparison), None where that repeat's call failed; with an ensemble, each
    judge's repeats one after another, and ``flip_rate`` is the mean of the judges'
    own flip rates. ``variation`` says what changed between repeats;
    ``temperature`` is the sampling temperature when it was that.
    """

    model_config = ConfigDict(extra="forbid")

    repeats: int
    answers: list[str | None]
    flip_rate: float | None
    variation: Variation
    temperature: float | None = None
