"""``evaluate_rubric``: every criterion of a mixed rubric, concurrently, then one report.

Function, schema and decode criteria go through :func:`run_method`; criteria
graded by an LLM judge go through :class:`rubricjudge.CriterionGrader` (one grade
of a rubric made of just those criteria), all under one ``asyncio.gather``. The
score, ``passed`` and scaled score come from ``_scoring.finalize``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any, Literal

from .._aio import run_sync
from .._errors import ConfigError
from .._methods._feedback import generate_deterministic_summary, generate_feedback_summary
from .._methods._functions import FunctionRegistry
from .._methods._levels import ERROR_LEVEL, level_id
from .._methods._run import Functions, _judge, check_method, coerce_policy, run_method
from .._model._relations import decide_related
from .._model._reports import CriterionReport, EvaluationReport
from .._model._rubric import Criterion, Rubric, ScoringType
from .._model._scoring import DEFAULT_POLICY, ScoringPolicy, assemble_reports, finalize
from ._criterion import CriterionGrader

__all__ = ["FeedbackMode", "evaluate_rubric", "evaluate_rubric_sync", "target_text"]

FeedbackMode = Literal["deterministic", "llm", "none"]


def target_text(target: Any) -> Any:
    """Return what an LLM grader is shown: text, a thinking/output mapping, or JSON of the data."""
    if isinstance(target, str):
        return target
    if isinstance(target, Mapping) and set(map(str, target)) <= {"thinking", "output"}:
        if all(isinstance(v, str) or v is None for v in target.values()):
            return dict(target)
    return json.dumps(target, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def _with_level(report: CriterionReport) -> CriterionReport:
    """Return an LLM-graded report with ``level_id`` and ``scoring_method_used`` filled in."""
    update: dict[str, Any] = {"scoring_method_used": ScoringType.LLM}
    if report.level_id is None:
        if report.error is not None:
            update["level_id"] = ERROR_LEVEL
        elif report.selection is not None:
            opt = (report.criterion.options or [])[report.selection.index]
            update["level_id"] = level_id(opt)
        elif report.verdict is not None:
            update["level_id"] = report.verdict.value
    return report.model_copy(update=update)


async def _grade_llm(
    rubric: Rubric, leaves: list[Criterion], target: Any, judge: Any, policy: ScoringPolicy
) -> EvaluationReport:
    grader = CriterionGrader(
        judge,
        cannot_assess=policy.cannot_assess,
        partial_credit=policy.partial_credit,
        normalize=policy.normalize,
    )
    part = Rubric(leaves, guidelines=rubric.guidelines)
    return await grader.grade(part, target_text(target))


async def evaluate_rubric(
    rubric: Rubric,
    target: Any,
    *,
    judge: Any = None,
    functions: Functions = None,
    feedback: FeedbackMode = "deterministic",
    policy: ScoringPolicy | str = DEFAULT_POLICY,
) -> EvaluationReport:
    """Evaluate ``target`` against every criterion of ``rubric`` at once.

    Args:
        rubric: any mix of ``llm``, ``function``, ``json_schema`` and ``llm_decode``
            criteria, nested or flat.
        target: text, or structured content (a dict / JSON text); LLM-graded criteria
            see structured content as indented JSON.
        judge: a Judge or spec string, needed by ``llm`` and ``llm_decode`` criteria.
        functions: where ``function_ref`` / ``schema_ref`` are looked up.
        feedback: ``"deterministic"`` (default) writes the template summary,
            ``"llm"`` asks ``judge`` and falls back to the template on failure,
            ``"none"`` leaves ``feedback_summary`` unset.
        policy: the scoring policy (CANNOT_ASSESS strategy, normalisation), or
            ``"dataknobs"`` to reproduce dataknobs' executor exactly (failures and
            unknown levels score 0, no clamp; see :class:`rubricjudge.ScoringPolicy`).

    Raises:
        ConfigError: a criterion's method cannot run (checked before anything runs).
    """
    registry = FunctionRegistry.coerce(functions)
    policy = coerce_policy(policy)
    the_judge = _judge(judge)
    leaves = rubric.leaves()
    llm = [c for c in leaves if c.method is ScoringType.LLM]
    if llm and the_judge is None:
        raise ConfigError(
            f"{len(llm)} criteria are graded by an LLM judge (first: "
            f"{llm[0].key or llm[0].requirement[:40]!r}); pass judge=..."
        )
    if feedback == "llm" and the_judge is None:
        raise ConfigError("feedback='llm' needs judge=...; or use feedback='deterministic'")
    for c in leaves:
        if c.method is not ScoringType.LLM:
            check_method(c, registry, the_judge)

    methods = [
        run_method(c, target, judge=the_judge, functions=registry, policy=policy)
        for c in leaves
        if c.method is not ScoringType.LLM
    ]
    llm_task = [_grade_llm(rubric, llm, target, the_judge, policy)] if llm else []
    results = await asyncio.gather(*llm_task, *methods)
    llm_report: EvaluationReport | None = results[0] if llm else None  # type: ignore[assignment]
    method_reports: list[CriterionReport] = list(results[1:] if llm else results)  # type: ignore[arg-type]

    llm_reports = iter((llm_report.report or []) if llm_report is not None else [])
    by_method = iter(method_reports)
    ordered = [
        _with_level(next(llm_reports)) if c.method is ScoringType.LLM else next(by_method)
        for c in leaves
    ]
    # related verdicts are decided together, across judged and computed criteria
    reports = assemble_reports(rubric.criteria, decide_related(rubric, ordered))
    metadata: dict[str, Any] = {"evaluator": "evaluate_rubric"}
    if rubric.id is not None:
        metadata["rubric_id"] = rubric.id
    if rubric.version is not None:
        metadata["rubric_version"] = rubric.version
    report = finalize(
        rubric,
        reports,
        policy,
        judge_calls=(llm_report.judge_calls if llm_report else 0)
        + sum(1 for r in method_reports if r.llm_invocation is not None),
        cached_calls=llm_report.cached_calls if llm_report else 0,
        metadata=metadata,
    )
    if feedback == "none":
        return report
    if feedback == "llm":
        summary = await generate_feedback_summary(rubric, report, judge=the_judge)
    else:
        summary = generate_deterministic_summary(rubric, report)
    info = {"source": summary.source, "fallback_reason": summary.fallback_reason}
    return report.model_copy(
        update={"feedback_summary": str(summary), "metadata": {**metadata, "feedback": info}}
    )


def evaluate_rubric_sync(
    rubric: Rubric,
    target: Any,
    *,
    judge: Any = None,
    functions: Functions = None,
    feedback: FeedbackMode = "deterministic",
    policy: ScoringPolicy | str = DEFAULT_POLICY,
) -> EvaluationReport:
    """Blocking :func:`evaluate_rubric` (works inside a running event loop too)."""
    return run_sync(
        evaluate_rubric(
            rubric, target, judge=judge, functions=functions, feedback=feedback, policy=policy
        )
    )
