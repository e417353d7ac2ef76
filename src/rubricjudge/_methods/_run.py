"""``run_method``: decide one criterion by its method (function, schema, decode, trajectory).

Failure policy: an exception raised by a scoring function, a function returning
something that is not a level, a template that does not render, and a judge that
fails are all recorded on the report (``error``, ``error_category`` of
``function`` / ``template`` / the judge's category / ``parse``) with the verdict
CANNOT_ASSESS; the scoring policy's CannotAssessStrategy decides what that is
worth. Under the ``dataknobs`` scoring policy only exact level ids are levels
(a label is not), and the same failures score 0 (``_scoring_dataknobs``); a
schema's pass takes the highest-scoring level and its failure the lowest whatever
the weight's sign, and a decode reply is read as dataknobs reads it (see
``_decode``), as its executor does.
Misconfiguration — an unknown function ref, an import that is not allowed,
an invalid schema, a decode criterion without a judge — is a ConfigError, raised.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._errors import ConfigError
from .._judges._base import Judge
from .._judges._registry import get_judge
from .._model._reports import CriterionReport
from .._model._rubric import Criterion, ScoringType
from .._model._scoring import DEFAULT_POLICY, ScoringPolicy
from ._decode import compile_template, run_decode
from ._functions import FunctionRegistry, FunctionResult, call_function
from ._levels import ERROR_LEVEL, error_report, level_report, name_of, resolve_level
from ._media import run_media
from ._schema import compile_schema, run_schema
from ._trajectory import run_trajectory

__all__ = ["check_method", "coerce_policy", "run_method"]

Functions = FunctionRegistry | Mapping[str, Callable[[Any], Any]] | None


def _judge(judge: Any) -> Judge | None:
    if judge is None or isinstance(judge, Judge):
        return judge

    return get_judge(judge)


def coerce_policy(policy: ScoringPolicy | str | None) -> ScoringPolicy:
    """Return the scoring policy ``policy`` names; an unknown name is a ConfigError."""
    try:
        return ScoringPolicy.coerce(policy) if policy is not None else DEFAULT_POLICY
    except ValueError as e:
        raise ConfigError(str(e)) from None


def check_method(criterion: Criterion, functions: FunctionRegistry, judge: Any) -> None:
    """Raise ConfigError now if ``criterion``'s method cannot run (before any call).

    Resolves the function ref, compiles the schema and the template.
    """
    import jinja2

    method = criterion.method
    where = f"criterion {name_of(criterion)!r}"
    if not criterion.is_leaf:
        raise ConfigError(f"{where} has subcriteria; scoring methods apply to leaf criteria")
    sm = criterion.scoring_method
    if method is ScoringType.FUNCTION:
        assert sm is not None and sm.function_ref is not None
        functions.resolve(sm.function_ref)
    elif method is ScoringType.JSON_SCHEMA:
        compile_schema(criterion, functions)
    elif method is ScoringType.LLM_DECODE:
        assert sm is not None and sm.decode_prompt is not None
        if judge is None:
            raise ConfigError(f"{where} uses llm_decode, which needs a judge; pass judge=...")
        try:
            compile_template(sm.decode_prompt)
        except jinja2.TemplateSyntaxError as e:
            raise ConfigError(
                f"{where}: scoring_method.decode_prompt is not a valid Jinja2 template "
                f"(line {e.lineno}): {e.message}"
            ) from None
    elif method in (ScoringType.TRAJECTORY, ScoringType.MEDIA):
        pass  # the model checked the check's fields when the rubric was built
    elif method is ScoringType.LLM:
        raise ConfigError(f"{where} is graded by an LLM judge; use a grader (CriterionGrader)")
    else:
        raise ConfigError(
            f"{where} uses scoring method {method.value!r}, which run_method does not run; "
            "use 'function', 'json_schema', 'llm_decode', 'trajectory' or 'media'"
        )


async def _run_function(
    criterion: Criterion, target: Any, functions: FunctionRegistry, *, strict: bool
) -> CriterionReport:
    method = ScoringType.FUNCTION
    assert criterion.scoring_method is not None and criterion.scoring_method.function_ref
    ref = criterion.scoring_method.function_ref
    fn = functions.resolve(ref)
    try:
        result = await call_function(fn, target)
    except Exception as e:  # the user's code failed: data, not a crash
        message = f"{ref} raised {type(e).__name__}: {e}"
        return error_report(criterion, method, message, category="function")
    evidence: list[str] = []
    notes = f"decided by {ref}"
    if isinstance(result, FunctionResult):
        evidence, notes, result = list(result.evidence), result.notes or notes, result.level
    try:
        level = resolve_level(criterion, result, strict=strict)
    except ValueError as e:
        # dataknobs keeps the id the function returned; rubricjudge marks it an error level
        shown = result if strict and isinstance(result, str) else ERROR_LEVEL
        return error_report(
            criterion,
            method,
            f"{ref} returned {e}",
            category="function",
            evidence=evidence,
            level=shown,
        )
    return level_report(criterion, level, method, evidence=evidence, notes=notes)


async def run_method(
    criterion: Criterion,
    target: Any,
    *,
    judge: Judge | None = None,
    functions: Functions = None,
    policy: ScoringPolicy | str | None = None,
) -> CriterionReport:
    """Decide ``criterion`` about ``target`` with its scoring method.

    Args:
        criterion: a leaf criterion whose method is ``function``, ``json_schema``,
            ``llm_decode``, ``trajectory`` or ``media``.
        target: the content: text, or structured data (a dict, or JSON text); for
            ``trajectory``, a conversation (or a submission holding one); for
            ``media``, a submission with images or documents.
        judge: the judge for ``llm_decode`` (a Judge or a spec string).
        functions: the registry (or a ``{ref: function}`` dict) ``function_ref`` and
            ``schema_ref`` are looked up in.
        policy: the scoring policy, or ``"dataknobs"``; under it a function's answer
            must be an exact level id (see :class:`rubricjudge.ScoringPolicy`).

    Returns:
        The criterion's report: ``level_id``, the verdict or selection (its score),
        ``evidence``, ``notes`` and ``scoring_method_used``; ``error`` when it failed.

    Raises:
        ConfigError: the method cannot run (see the module docstring).
    """
    registry = FunctionRegistry.coerce(functions)
    rules = coerce_policy(policy)
    the_judge = _judge(judge)
    check_method(criterion, registry, the_judge)
    method = criterion.method
    dataknobs = rules.compat == "dataknobs"
    if method is ScoringType.FUNCTION:
        return await _run_function(criterion, target, registry, strict=dataknobs)
    if method is ScoringType.JSON_SCHEMA:
        validator = compile_schema(criterion, registry)
        return run_schema(criterion, target, validator, dataknobs=dataknobs)
    if method is ScoringType.TRAJECTORY:
        return run_trajectory(criterion, target)
    if method is ScoringType.MEDIA:
        return run_media(criterion, target)
    assert the_judge is not None
    return await run_decode(criterion, target, the_judge, dataknobs=dataknobs)
