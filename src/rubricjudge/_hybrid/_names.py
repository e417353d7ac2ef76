"""Metrics by name: the built-in ones and those registered in code.

A rubric names its metrics (OpenRubricRL ``type`` and, for ``custom``,
``config.metric_function``); the names resolve here, never by importing anything a
file names. Register your own with :func:`register_metric`.

Types and names:

=============  ===========================================================
``bleu``       sentence BLEU / 100 (sacrebleu)
``chrf``       sentence chrF / 100 (sacrebleu)
``rouge``      ROUGE F-measure, ``config.variant`` (default ``rougeL``)
``rouge1`` ..  ``rouge1``, ``rouge2``, ``rougeL``, ``rougeLsum`` directly
``accuracy``   exact match against the references (also ``exact_match``)
``perplexity`` local-model perplexity mapped onto [0, 1]
``custom``     the metric named by ``config.metric_function``: a built-in
               (``flesch_reading_ease`` / ``readability``, ``chrf``, ...) or one
               registered with :func:`register_metric`
=============  ===========================================================
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping

from .._errors import ConfigError
from .._model._rubric import HybridMetric
from ._base import MetricFn
from ._perplexity import Perplexity
from ._readability import readability
from ._text import ROUGE_VARIANTS, bleu, chrf, exact_match, rouge, rouge_variant

__all__ = [
    "builtin_metrics",
    "metric_names",
    "register_metric",
    "resolve_metric",
    "unregister_metric",
]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def builtin_metrics() -> dict[str, MetricFn]:
    """The built-in metrics by name."""
    out: dict[str, MetricFn] = {
        "bleu": bleu,
        "chrf": chrf,
        "rouge": rouge,
        "exact_match": exact_match,
        "accuracy": exact_match,
        "flesch_reading_ease": readability,
        "readability": readability,
        "perplexity": Perplexity(),
    }
    for variant in ROUGE_VARIANTS:
        out[variant] = rouge_variant(variant)
    return out


_BUILTIN = builtin_metrics()
_CUSTOM: dict[str, MetricFn] = {}


def register_metric(name: str, fn: MetricFn, *, replace: bool = False) -> None:
    """Register ``fn`` (``def`` or ``async def``, taking a MetricInput) under ``name``.

    The function returns a value in [0, 1] or a :class:`MetricValue`, and raises
    :class:`MetricError` when it cannot score an item.

    Raises:
        ConfigError: the name is not an identifier-like string, or is taken (a
            built-in or an earlier registration) and ``replace`` is false.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigError(
            f"metric name {name!r} must start with a letter or _ (then [A-Za-z0-9_.-])"
        )
    if not callable(fn):
        raise ConfigError(f"metric {name!r}: {fn!r} is not callable")
    if not replace and (name in _BUILTIN or name in _CUSTOM):
        raise ConfigError(f"metric {name!r} is already registered; pass replace=True to replace it")
    _CUSTOM[name] = fn


def unregister_metric(name: str) -> None:
    """Remove a metric registered with :func:`register_metric` (built-ins stay)."""
    _CUSTOM.pop(name, None)


def metric_names() -> list[str]:
    """Every metric name that resolves: built-ins and registered ones."""
    return sorted({*_BUILTIN, *_CUSTOM})


def _lookup(name: str, extra: Mapping[str, MetricFn], where: str) -> MetricFn:
    for table in (extra, _CUSTOM, _BUILTIN):
        if name in table:
            return table[name]
    known = sorted({*extra, *_CUSTOM, *_BUILTIN})
    near = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    raise ConfigError(
        f"{where}: no metric named {name!r}; known metrics: {', '.join(known)}{hint}. "
        "Register your own in code with rubricjudge.register_metric(name, fn)"
    )


def resolve_metric(
    metric: HybridMetric, extra: Mapping[str, MetricFn] | None = None, *, where: str = ""
) -> MetricFn:
    """The function that computes ``metric`` (by its type, or its ``metric_function``).

    ``extra`` maps names to functions given to one grader; they come first.

    Raises:
        ConfigError: the metric names nothing known (the message lists what is).
    """
    table = dict(extra or {})
    here = where or f"hybrid metric {metric.name!r}"
    if metric.type == "custom":
        fn_name = metric.config.get("metric_function")
        if not isinstance(fn_name, str) or not fn_name:
            raise ConfigError(
                f"{here}: type 'custom' needs config.metric_function, the name of a metric "
                f"registered in code (got {fn_name!r})"
            )
        return _lookup(fn_name, table, here)
    return _lookup(metric.type, table, here)
