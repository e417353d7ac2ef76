"""Hybrid metrics (BLEU, chrF, ROUGE, exact match, readability, perplexity, custom)."""

from ._base import MetricError, MetricFn, MetricInput, MetricValue
from ._combine import OnMetricError, check_hybrid, combine_scores, run_metric, run_metrics
from ._grader import HybridGrader
from ._names import metric_names, register_metric, resolve_metric, unregister_metric
from ._perplexity import Perplexity, perplexity_to_unit
from ._readability import count_syllables, flesch_reading_ease

__all__ = [
    "HybridGrader",
    "MetricError",
    "MetricFn",
    "MetricInput",
    "MetricValue",
    "OnMetricError",
    "Perplexity",
    "check_hybrid",
    "combine_scores",
    "count_syllables",
    "flesch_reading_ease",
    "metric_names",
    "perplexity_to_unit",
    "register_metric",
    "resolve_metric",
    "run_metric",
    "run_metrics",
    "unregister_metric",
]
