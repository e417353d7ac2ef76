"""Agreement of pairwise preferences with human preference labels, with bootstrap intervals.

The numbers are defined in ``_stats._pairwise_stats``: accuracy with ties counted
half, agreement excluding ties, accuracy without the swap, the consistency rate
and the share won by the answer shown first. The intervals resample pairs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._errors import ConfigError
from .._limits import json_loads
from .._model._pairwise import PairwiseReport
from .._stats._pairwise_stats import PairwiseStats, PairwiseTally, credit, first_order_preference

__all__ = ["PairwiseMetrics", "pairwise_metrics", "read_pairwise_reports"]


class PairwiseMetrics(BaseModel):
    """:class:`PairwiseStats` with bootstrap intervals of its agreement numbers."""

    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")

    stats: PairwiseStats
    intervals: dict[str, tuple[float, float]] = Field(default_factory=dict)
    confidence: float = 0.95

    def to_text(self) -> str:
        """The stats' lines, then the intervals."""
        lines = [self.stats.to_text()]
        level = f"{self.confidence:.0%}"
        for name, (lo, hi) in self.intervals.items():
            lines.append(f"{level} interval of {name.replace('_', ' ')}: {lo:.1%} to {hi:.1%}")
        return "\n".join(lines)


def _interval(values: list[float], n: int, confidence: float, seed: int) -> tuple[float, float]:
    arr = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = arr[rng.integers(0, len(arr), size=(n, len(arr)))].mean(axis=1)
    tail = (1.0 - confidence) / 2
    lo, hi = np.quantile(means, [tail, 1.0 - tail])
    return float(lo), float(hi)


def pairwise_metrics(
    reports: Iterable[PairwiseReport],
    *,
    bootstrap: int = 0,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairwiseMetrics:
    """Position bias, consistency and agreement with the reports' ``label`` s.

    Raises:
        ConfigError: ``confidence`` outside (0, 1) or ``bootstrap`` below 0.
    """
    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"--confidence {confidence!r} must be between 0 and 1")
    if bootstrap < 0:
        raise ConfigError(f"--bootstrap {bootstrap!r} must be 0 or more")
    tally = PairwiseTally()
    swap: list[float] = []
    first: list[float] = []
    no_ties: list[float] = []
    for r in reports:
        tally.add(r)
        if r.label is None:
            continue
        if r.preferred is not None:
            swap.append(credit(r.preferred, r.label))
            if "tie" not in (r.preferred, r.label):
                no_ties.append(float(r.preferred == r.label))
        alone = first_order_preference(r.criteria)
        if alone is not None:
            first.append(credit(alone, r.label))
    out = PairwiseMetrics(stats=tally.stats(), confidence=confidence)
    if bootstrap > 0:
        for name, values in (
            ("accuracy", swap),
            ("agreement_excluding_ties", no_ties),
            ("accuracy_first_order", first),
        ):
            if len(values) > 1:
                out.intervals[name] = _interval(values, bootstrap, confidence, seed)
    return out


def read_pairwise_reports(path: str | Path) -> list[PairwiseReport]:
    """The reports of a ``grade --pairwise -o`` file.

    Raises:
        ConfigError: an unreadable file, or a line that is not a pairwise report
            (naming the line).
    """
    p = Path(path)
    out: list[PairwiseReport] = []
    try:
        with p.open(encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    data = json_loads(line, source=str(p), line=n)
                    if isinstance(data, dict) and "submission_a" in data:
                        raise ConfigError(
                            f"{p} line {n}: this is an input of `rubricjudge grade --pairwise`; "
                            "compare the pairs first and give the file its -o writes"
                        )
                    out.append(PairwiseReport.model_validate(data))
                except (ValueError, ValidationError) as e:
                    why = str(e).splitlines()[0]
                    if isinstance(e, ValidationError):
                        first = e.errors()[0]
                        why = f"{'.'.join(str(x) for x in first['loc']) or 'the line'}: "
                        why += str(first["msg"])
                    elif isinstance(e, json.JSONDecodeError):
                        why = f"not JSON ({e.msg})"
                    raise ConfigError(
                        f"{p} line {n}: not a result of `rubricjudge grade --pairwise` ({why}); "
                        "give the -o file of grade --pairwise, or a run directory"
                    ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{p}: cannot read it ({e})") from None
    if not out:
        raise ConfigError(f"{p} holds no results; give the -o file of grade --pairwise")
    return out
