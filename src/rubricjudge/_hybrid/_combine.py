"""Running a rubric's hybrid metrics and combining them with the judges' score.

With metric weights ``w_m`` (each in [0, 1], their sum ``W`` at most 1) the
judges' (LLM) score gets the rest, ``w_llm = 1 - W``, and::

    final = (w_llm * llm_score + sum(w_m * value_m)) / (w_llm + sum(w_m))

over the metrics that ran. When every metric ran the denominator is 1, so
``final = (1 - W) * llm_score + sum(w_m * value_m)``; OpenRubricRL's example
(criteria summing to 1, readability at 0.1) is 0.9 * LLM + 0.1 * readability.

A metric that could not run is recorded with its error (never as 0). What the
final score is then depends on ``on_metric_error``:

- ``"error"`` (default): no final score (``score`` None, ``error`` set), as for an
  item no criterion of which could be graded;
- ``"drop"``: the failed metric's weight leaves the formula above (the others are
  re-weighted), and the error stays in ``metrics``.

When the judges produced no score, there is no final score either.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from .._errors import ConfigError, RunError
from .._model._reports import MetricResult
from .._model._rubric import HybridMetric, Rubric
from ._base import MetricError, MetricFn, MetricInput, MetricValue
from ._names import resolve_metric

__all__ = [
    "OnMetricError",
    "check_hybrid",
    "combine_scores",
    "references_for",
    "run_metric",
    "run_metrics",
]

OnMetricError = Literal["error", "drop"]


def check_hybrid(
    rubric: Rubric, extra: Mapping[str, MetricFn] | None = None
) -> list[tuple[HybridMetric, MetricFn]]:
    """Resolve every hybrid metric of ``rubric`` and check their weights.

    Raises:
        ConfigError: an unknown metric, a weight outside [0, 1], or weights summing
            past 1 (the LLM score would have a negative weight).
    """
    metrics = rubric.hybrid_metrics or []
    out = []
    for i, m in enumerate(metrics):
        where = f"hybrid_metrics[{i}] ({m.name!r})"
        if not (math.isfinite(m.weight) and 0.0 <= m.weight <= 1.0):
            raise ConfigError(f"{where}.weight {m.weight!r} is outside [0, 1]")
        out.append((m, resolve_metric(m, extra, where=where)))
    total = math.fsum(m.weight for m in metrics)
    if total > 1.0 + 1e-9:
        raise ConfigError(
            f"hybrid metric weights sum to {total:g}, more than 1; the judges' score gets "
            "weight 1 - sum, so lower the metric weights"
        )
    return out


def references_for(
    metric: HybridMetric,
    *,
    references: Sequence[str] | None,
    reference_submission: str | None,
    fields: Mapping[str, Any] | None,
) -> list[str]:
    """The references a metric compares with.

    ``config.reference_key`` names a per-item field (a string or a list of strings)
    and wins when the item has it; then ``references``; then ``reference_submission``.
    """
    key = metric.config.get("reference_key")
    if isinstance(key, str) and fields and fields.get(key) is not None:
        value = fields[key]
        if isinstance(value, str):
            return [value]
        if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
            return list(value)
        raise MetricError(
            f"metric {metric.name!r}: field {key!r} is {type(value).__name__}; "
            "give a string or a list of strings"
        )
    if references:
        return list(references)
    if reference_submission is None:
        return []
    # a reference with images (a Submission) is compared by its text
    return [str(getattr(reference_submission, "output", reference_submission))]


async def run_metric(
    metric: HybridMetric,
    fn: MetricFn,
    prediction: str,
    *,
    query: str | None = None,
    references: Sequence[str] | None = None,
    reference_submission: str | None = None,
    fields: Mapping[str, Any] | None = None,
) -> MetricResult:
    """Run one metric; a :class:`MetricError` (or ImportError) becomes the result's error."""
    base = {"name": metric.name, "type": metric.type, "weight": metric.weight}
    try:
        refs = references_for(
            metric, references=references, reference_submission=reference_submission, fields=fields
        )
        inp = MetricInput(
            prediction=prediction,
            references=refs,
            query=query,
            config=dict(metric.config),
            name=metric.name,
        )
        out: Any = fn(inp)
        if inspect.isawaitable(out):
            out = await out
        value = out if isinstance(out, MetricValue) else _as_value(metric, out)
    except (MetricError, ImportError) as e:
        return MetricResult(**base, error=str(e))
    except RunError as e:
        return MetricResult(**base, error=f"{type(e).__name__}: {e}")
    return MetricResult(**base, value=value.value, raw=value.raw, details=dict(value.details))


def _as_value(metric: HybridMetric, out: Any) -> MetricValue:
    if isinstance(out, bool) or not isinstance(out, int | float):
        raise MetricError(
            f"metric {metric.name!r} returned {out!r}; return a number in [0, 1] or a MetricValue"
        )
    return MetricValue(value=float(out), raw=float(out))


async def run_metrics(
    pairs: Sequence[tuple[HybridMetric, MetricFn]],
    prediction: str,
    *,
    query: str | None = None,
    references: Sequence[str] | None = None,
    reference_submission: str | None = None,
    fields: Mapping[str, Any] | None = None,
) -> list[MetricResult]:
    """Run the metrics one after another (the heavy ones use a worker thread)."""
    return [
        await run_metric(
            m,
            fn,
            prediction,
            query=query,
            references=references,
            reference_submission=reference_submission,
            fields=fields,
        )
        for m, fn in pairs
    ]


def combine_scores(
    llm_score: float | None,
    results: Sequence[MetricResult],
    on_metric_error: OnMetricError = "error",
) -> tuple[float | None, str | None]:
    """Return (final score or None, error or None) by the formula in this module's docstring."""
    if on_metric_error not in ("error", "drop"):
        raise ConfigError(f"on_metric_error {on_metric_error!r} is not 'error' or 'drop'")
    failed = [r for r in results if r.error is not None]
    if llm_score is None:
        return None, "the judges produced no score, so there is no hybrid score"
    if failed and on_metric_error == "error":
        names = ", ".join(f"{r.name!r} ({r.error})" for r in failed)
        return None, f"hybrid metric failed: {names}"
    w_llm = max(0.0, 1.0 - math.fsum(r.weight for r in results))
    num = w_llm * llm_score
    den = w_llm
    for r in results:
        if r.value is not None:
            num += r.weight * r.value
            den += r.weight
    if den <= 0.0:
        return None, "no weight is left: every weighted metric failed and the judges weigh 0"
    return max(0.0, min(1.0, num / den)), None
