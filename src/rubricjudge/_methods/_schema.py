"""The ``json_schema`` method: structured content validated against a JSON Schema.

Valid content gets the criterion's best level, invalid content its worst (on a
binary criterion MET / UNMET, reversed for a penalty); the validation errors are
kept as evidence. Validation is offline: a ``$ref`` to a URL is never fetched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema_rs

from .._errors import ConfigError
from .._limits import json_loads
from .._model._reports import CriterionReport
from .._model._rubric import Criterion, CriterionVerdict, ScoringType
from ._functions import FunctionRegistry
from ._levels import extreme_level, level_report, name_of

__all__ = ["compile_schema", "run_schema", "schema_for"]

MAX_EVIDENCE = 20


def schema_for(criterion: Criterion, functions: FunctionRegistry) -> dict[str, Any]:
    """Return the schema of a ``json_schema`` criterion: inline, else through ``schema_ref``."""
    method = criterion.scoring_method
    assert method is not None
    if method.json_schema is not None:
        return method.json_schema
    assert method.schema_ref is not None  # the model requires one of them
    return functions.resolve_schema(method.schema_ref)


def compile_schema(criterion: Criterion, functions: FunctionRegistry) -> Any:
    """Return a validator for the criterion's schema.

    Raises:
        ConfigError: the schema is not a valid JSON Schema, or its ref cannot be resolved.
    """
    schema = schema_for(criterion, functions)
    try:
        return jsonschema_rs.validator_for(schema, offline=True)
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ConfigError(
            f"criterion {name_of(criterion)!r}: scoring_method.schema is not a valid, "
            f"self-contained JSON Schema: {first}"
        ) from None


def _instance(target: Any) -> tuple[Any, str | None]:
    """Return the JSON value to validate, or an evidence line saying why there is none."""
    if isinstance(target, bytes):
        target = target.decode("utf-8", "replace")
    if isinstance(target, str):
        try:
            return json_loads(target), None
        except ValueError as e:
            return None, f"content is not JSON: {e}"
    if isinstance(target, Mapping):
        return dict(target), None
    if isinstance(target, list | int | float | bool) or target is None:
        return target, None
    return None, f"content of type {type(target).__name__} is not JSON data"


def _where(path: Any) -> str:
    parts = list(path)
    return "/" + "/".join(str(p) for p in parts) if parts else "(root)"


def _dataknobs_level(criterion: Criterion, *, passed: bool) -> CriterionVerdict | int:
    """The level dataknobs' executor picks: the highest-scoring on a pass, lowest on a failure.

    It sorts the levels by score (a stable sort) and takes the last or the first,
    whatever the weight's sign; a binary criterion is MET or UNMET.
    """
    if criterion.options is None:
        return CriterionVerdict.MET if passed else CriterionVerdict.UNMET
    order = sorted(range(len(criterion.options)), key=lambda i: criterion.options[i].value)  # type: ignore[index]
    return order[-1] if passed else order[0]


def run_schema(
    criterion: Criterion, target: Any, validator: Any, *, dataknobs: bool = False
) -> CriterionReport:
    """Validate ``target`` (a dict, list or JSON text) and report the level.

    ``dataknobs`` picks the level as dataknobs' executor does (by score, not by the
    weight's sign).
    """
    instance, problem = _instance(target)
    more = False
    if problem is not None:
        errors = [problem]
    else:
        errors = [
            f"{_where(e.instance_path)}: {e.message}"
            for _, e in zip(range(MAX_EVIDENCE + 1), validator.iter_errors(instance), strict=False)
        ]
        more = len(errors) > MAX_EVIDENCE
        if more:
            errors = [*errors[:MAX_EVIDENCE], "... further validation errors left out"]
    passed = not errors
    if dataknobs:
        level = _dataknobs_level(criterion, passed=passed)
    else:
        level = extreme_level(criterion, best=passed)
    count = f"more than {MAX_EVIDENCE}" if more else str(len(errors))
    notes = "content matches the schema" if passed else f"{count} schema violation(s)"
    return level_report(criterion, level, ScoringType.JSON_SCHEMA, evidence=errors, notes=notes)
