"""Calling a grader's ``aggregate()``: the seed's signature or ours.

The ``rubric`` package's seed overrides ``aggregate(self, judge_results, *,
normalize=True)``, sync or async, with no rubric; ours also passes ``rubric=``.
An override gets the keywords its signature takes, and the default, called from
an override without ``rubric``, finds the rubric being graded in
:data:`CURRENT_RUBRIC`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from .._errors import ConfigError
from .._model._reports import CriterionReport, EvaluationReport
from .._model._rubric import Rubric

__all__ = ["CURRENT_RUBRIC", "aggregated", "call_aggregate"]

# the rubric being aggregated, for an override that calls the default without it
CURRENT_RUBRIC: ContextVar[Rubric | None] = ContextVar("rubricjudge_aggregate_rubric", default=None)


@functools.lru_cache(maxsize=256)
def _takes(function: Callable[..., Any]) -> tuple[bool, bool]:
    """Whether ``function`` takes ``rubric=`` and ``normalize=`` (once per function)."""
    params = inspect.signature(function).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    return takes_any or "rubric" in params, takes_any or "normalize" in params


def call_aggregate(
    aggregate: Callable[..., Any], reports: list[CriterionReport], rubric: Rubric, normalize: bool
) -> Any:
    """Call ``aggregate`` with the keywords its signature takes (the seed's takes no rubric)."""
    # a bound method is new on every access: its function is what stays the same
    takes_rubric, takes_normalize = _takes(getattr(aggregate, "__func__", aggregate))
    kwargs: dict[str, Any] = {}
    if takes_rubric:
        kwargs["rubric"] = rubric
    if takes_normalize:
        kwargs["normalize"] = normalize
    return aggregate(reports, **kwargs)


async def aggregated(
    aggregate: Callable[..., Any],
    reports: list[CriterionReport],
    rubric: Rubric,
    normalize: bool,
    owner: str,
) -> EvaluationReport:
    """The report ``aggregate`` (sync or async) makes of ``rubric``'s criteria reports.

    Raises:
        ConfigError: it returned something else than an EvaluationReport; ``owner``
            (the grader's class name) says whose ``aggregate()`` it was.
    """
    token = CURRENT_RUBRIC.set(rubric)
    try:
        report = call_aggregate(aggregate, reports, rubric, normalize)
    finally:
        CURRENT_RUBRIC.reset(token)
    if inspect.isawaitable(report):
        report = await report
    if not isinstance(report, EvaluationReport):
        raise ConfigError(
            f"{owner}.aggregate() returned {type(report).__name__}; it must "
            "return an EvaluationReport"
        )
    return report
