"""Hybrid metrics beside the judge: BLEU, chrF, ROUGE, exact match, readability, perplexity."""

from __future__ import annotations

from ._errors import MetricError
from ._hybrid._grader import HybridGrader
from ._hybrid._names import metric_names, register_metric, unregister_metric
from ._model._rubric import HybridMetric

__all__ = [
    "HybridGrader",
    "HybridMetric",
    "MetricError",
    "metric_names",
    "register_metric",
    "unregister_metric",
]
