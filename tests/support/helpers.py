"""What many tests share: option levels and the sample sky rubric."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rubricjudge import Criterion, CriterionOption, Rubric


def levels(*labels: str) -> list[CriterionOption]:
    """Options labelled ``labels``, their values spread evenly from 0 to 1."""
    last = len(labels) - 1
    return [CriterionOption(label=label, value=i / last) for i, label in enumerate(labels)]


LEVELS = levels("poor", "fair", "great")


def graded_levels(
    fail: str, passed: str, excellent: str, **pass_extra: Any
) -> list[CriterionOption]:
    """dataknobs-style Fail / Pass / Excellent levels (0, 0.7, 1) with these descriptions."""
    return [
        CriterionOption(id="fail", label="Fail", value=0.0, description=fail),
        CriterionOption(id="pass", label="Pass", value=0.7, description=passed, **pass_extra),
        CriterionOption(id="excellent", label="Excellent", value=1.0, description=excellent),
    ]


def sky_rubric(
    *,
    clarity_weight: float = 4,
    clarity: list[CriterionOption] = LEVELS,
    between: Sequence[Criterion] = (),
    **options: Any,
) -> Rubric:
    """The sample rubric: Rayleigh scattering (10), the ocean myth (-5), clarity on options.

    ``between`` criteria go after the first one.
    """
    return Rubric(
        [
            Criterion(name="cause", weight=10, requirement="Names Rayleigh scattering"),
            *between,
            Criterion(name="myth", weight=-5, requirement="Claims the sky reflects the ocean"),
            Criterion(
                name="clarity",
                weight=clarity_weight,
                requirement="How clear is it?",
                options=clarity,
            ),
        ],
        **options,
    )
