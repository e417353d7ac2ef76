"""``HybridGrader``: a grader's (LLM) score combined with the rubric's hybrid metrics."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from .._aio import run_sync
from .._errors import ConfigError
from .._graders._criterion import CriterionGrader
from .._graders._inputs import to_submission
from .._model._reports import EvaluationReport
from .._model._rubric import Criterion, Rubric
from .._model._scoring import on_scale
from .._model._seams import AsyncGrader
from ._base import MetricFn
from ._combine import OnMetricError, check_hybrid, combine_scores, run_metrics

__all__ = ["HybridGrader"]


class HybridGrader:
    """Wraps a grader and adds the rubric's ``hybrid_metrics`` to every report.

    The metrics run alongside the judges. The report's ``score`` becomes the
    combined score (formula in ``rubricjudge._hybrid._combine``), ``llm_score`` keeps
    the grader's score, ``metrics`` lists each metric's value or error, and
    ``scaled_score`` / ``passed`` follow the combined score. A rubric without
    hybrid metrics is graded exactly as the wrapped grader grades it.

    Args:
        grader: any grader (``CriterionGrader(...)``, ...), or a judge spec, which
            builds a :class:`~rubricjudge.CriterionGrader`.
        metrics: metric functions by name, for this grader only (looked up before
            those registered with ``register_metric`` and the built-ins).
        on_metric_error: ``"error"`` (no combined score when a metric fails) or
            ``"drop"`` (the failed metric's weight leaves the formula).
    """

    def __init__(
        self,
        grader: AsyncGrader[Rubric, EvaluationReport] | str,
        *,
        metrics: Mapping[str, MetricFn] | None = None,
        on_metric_error: OnMetricError = "error",
    ) -> None:
        if on_metric_error not in ("error", "drop"):
            raise ConfigError(f"on_metric_error {on_metric_error!r} is not 'error' or 'drop'")
        if isinstance(grader, str):
            grader = CriterionGrader(judge=grader)
        if not callable(getattr(grader, "grade", None)):
            raise ConfigError(f"grader {grader!r} has no grade() method; give a grader")
        self.grader = grader
        self.metrics = dict(metrics or {})
        self.on_metric_error: OnMetricError = on_metric_error

    async def grade(
        self,
        rubric: Rubric | list[Criterion],
        to_grade: Any,
        *,
        query: str | None = None,
        reference_submission: str | None = None,
        item_id: str | None = None,
        examples: Sequence[Any] | None = None,
        references: Sequence[str] | None = None,
        fields: Mapping[str, Any] | None = None,
    ) -> EvaluationReport:
        """Grade ``to_grade`` and combine the judges' score with the metrics.

        ``references`` and ``fields`` (per-item values such as the one a metric's
        ``config.reference_key`` names) feed the reference-based metrics.
        """
        r = rubric if isinstance(rubric, Rubric) else Rubric(list(rubric))
        pairs = check_hybrid(r, self.metrics)  # usage errors before any judge call
        kwargs: dict[str, Any] = {
            "query": query,
            "reference_submission": reference_submission,
            "item_id": item_id,
        }
        if examples is not None:
            kwargs["examples"] = examples
        if not pairs:
            report: EvaluationReport = await self.grader.grade(r, to_grade, **kwargs)
            return report
        prediction = to_submission(to_grade).output
        judged = asyncio.ensure_future(self.grader.grade(r, to_grade, **kwargs))
        try:
            results = await run_metrics(
                pairs,
                prediction,
                query=query,
                references=references,
                reference_submission=reference_submission,
                fields=fields,
            )
        except BaseException:
            judged.cancel()
            raise
        report = await judged
        final, error = combine_scores(report.score, results, self.on_metric_error)
        update: dict[str, Any] = {"score": final, "llm_score": report.score, "metrics": results}
        if error is not None:
            update["error"] = f"{report.error}; {error}" if report.error else error
        update.update(on_scale(r.scale, final))
        if r.pass_threshold is not None:
            update["passed"] = final >= r.pass_threshold if final is not None else None
        return report.model_copy(update=update)

    def grade_sync(
        self, rubric: Rubric | list[Criterion], to_grade: Any, **kwargs: Any
    ) -> EvaluationReport:
        """Blocking :meth:`grade`."""
        return run_sync(self.grade(rubric, to_grade, **kwargs))
