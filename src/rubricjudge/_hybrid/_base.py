"""What a hybrid metric receives and returns, and the error for one that cannot run."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._errors import MetricError

__all__ = ["MetricError", "MetricFn", "MetricInput", "MetricValue"]


@dataclass(frozen=True)
class MetricInput:
    """What one metric call sees.

    Args:
        prediction: the submission text.
        references: the reference texts (from ``config.reference_key`` in ``fields``,
            the ``references`` given to the grader, or ``reference_submission``).
        query: the request the submission answers, when known.
        config: the metric's ``config`` mapping from the rubric file.
        name: the metric's name in the rubric.
    """

    prediction: str
    references: Sequence[str] = ()
    query: str | None = None
    config: Mapping[str, Any] = field(default_factory=dict)
    name: str = ""

    def need_references(self) -> Sequence[str]:
        """Return the references, or raise :class:`MetricError` when there are none."""
        if not self.references:
            key = self.config.get("reference_key")
            where = f"a field {key!r} per item, " if key else ""
            raise MetricError(
                f"metric {self.name!r} needs a reference; pass {where}reference_submission= "
                "or references= to the grader"
            )
        return self.references


@dataclass(frozen=True)
class MetricValue:
    """A metric's result: ``value`` in [0, 1], the metric's own ``raw`` number, details."""

    value: float
    raw: float | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not (isinstance(self.value, int | float) and math.isfinite(self.value)):
            raise MetricError(f"metric value {self.value!r} is not a finite number")
        if not 0.0 <= self.value <= 1.0:
            raise MetricError(
                f"metric value {self.value!r} is outside [0, 1]; a metric returns a value "
                "from 0 (worst) to 1 (best)"
            )


MetricFn = Callable[[MetricInput], "float | MetricValue | Awaitable[float | MetricValue]"]
