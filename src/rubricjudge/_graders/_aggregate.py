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

from .._model._reports import CriterionReport
from .._model._rubric import Rubric

__all__ = ["CURRENT_RUBRIC", "call_aggregate"]

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
