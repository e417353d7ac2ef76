"""The native format: the rubric model's own field names, strict, with a marker key.

A native file is a mapping whose ``format`` key is ``rubricjudge/1``; every other
key is a field of :class:`~rubricjudge.Rubric` (``requirement``, never
``description``, on criteria; ``json_schema`` on scoring methods). Unknown keys
are errors. :func:`to_native` writes only what differs from the defaults, so
``from_native(to_native(r)) == r``.
"""

from __future__ import annotations

from typing import Any

from .._errors import Problem
from .._model._rubric import Criterion, Rubric
from ._paths import PathMap, join, show

__all__ = ["MARKER", "MARKER_KEY", "from_native", "to_native"]

MARKER_KEY = "format"
MARKER = "rubricjudge/1"
LEGACY_MARKERS = ("rubricate/1",)
"""Markers of files written under the project's old name; read as :data:`MARKER`."""

_RUBRIC_ORDER = (
    MARKER_KEY,
    "name",
    "id",
    "version",
    "description",
    "domain",
    "target_type",
    "scale",
    "pass_threshold",
    "guidelines",
    "criteria",
    "relations",
    "hybrid_metrics",
    "metadata",
)
_CRITERION_ORDER = (
    "name",
    "id",
    "section",
    "requirement",
    "weight",
    "required",
    "gate",
    "options",
    "scale",
    "scale_type",
    "aggregation",
    "scoring_method",
    "scope",
    "turn_aggregation",
    "examples",
    "subcriteria",
    "metadata",
)
_OPTION_ORDER = ("label", "value", "na", "id", "description", "indicators")
# keys other formats use that the native format spells differently
_RENAMED = {"description": "requirement"}


def _ordered(data: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    first = {k: data[k] for k in order if k in data}
    return {**first, **{k: v for k, v in data.items() if k not in first}}


def _criterion_out(data: dict[str, Any], criterion: Criterion) -> dict[str, Any]:
    # written even when they are defaults: they are what a reader looks for
    data.setdefault("weight", criterion.weight)
    if criterion.scale is not None:
        data["scale"] = criterion.scale.model_dump(mode="json")
    if criterion.gate is not None:  # ``gate: true`` unless it caps rather than zeroes
        data["gate"] = True if criterion.gate.cap == 0 else {"cap": criterion.gate.cap}
    if "options" in data:
        data["options"] = [
            _ordered({"value": opt.value, **d}, _OPTION_ORDER)
            for d, opt in zip(data["options"], criterion.options or [], strict=True)
        ]
    if "subcriteria" in data:
        data["subcriteria"] = [
            _criterion_out(d, c)
            for d, c in zip(data["subcriteria"], criterion.subcriteria or [], strict=True)
        ]
    return _ordered(data, _CRITERION_ORDER)


def to_native(rubric: Rubric) -> dict[str, Any]:
    """Return the rubric as native data: the marker, then every field that is not a default."""
    data = rubric.model_dump(mode="json", exclude_defaults=True, by_alias=False)
    data["criteria"] = [
        _criterion_out(d, c) for d, c in zip(data["criteria"], rubric.criteria, strict=True)
    ]
    if rubric.scale is not None:
        data["scale"] = rubric.scale.model_dump(mode="json")
    data[MARKER_KEY] = MARKER
    return _ordered(data, _RUBRIC_ORDER)


def _check_criteria(items: Any, path: str, problems: list[Problem]) -> None:
    """Report other formats' key names on (sub)criteria; pydantic would accept the alias."""
    if not isinstance(items, list):
        return
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        here = join(path, i)
        for key, native in _RENAMED.items():
            if key in item:
                problems.append(
                    Problem(
                        join(here, key),
                        f"the native format calls this key {native!r}; rename {key!r} "
                        f"to {native!r}",
                    )
                )
        method = item.get("scoring_method")
        if isinstance(method, dict) and "schema" in method:
            problems.append(
                Problem(
                    join(here, "scoring_method", "schema"),
                    "the native format calls this key 'json_schema'; rename it",
                )
            )
        _check_criteria(item.get("subcriteria"), join(here, "subcriteria"), problems)


def from_native(data: Any, base: str = "") -> tuple[dict[str, Any], PathMap, list[Problem]]:
    """Native data ready for validation, its path map and the problems found so far."""
    paths = PathMap(base)
    problems: list[Problem] = []
    if not isinstance(data, dict):
        problems.append(
            Problem(base, f"a native rubric is a mapping with 'criteria', got {show(data)}")
        )
        return {"criteria": []}, paths, problems
    marker = data.get(MARKER_KEY)
    if marker is not None and marker != MARKER and marker not in LEGACY_MARKERS:
        problems.append(
            Problem(
                join(base, MARKER_KEY),
                f"{show(marker)} is not a format this rubricjudge reads; write {MARKER!r}",
            )
        )
    body = {k: v for k, v in data.items() if k != MARKER_KEY}
    _check_criteria(body.get("criteria"), join(base, "criteria"), problems)
    # drop the reported aliases so pydantic does not also accept them silently
    if isinstance(body.get("criteria"), list):
        body["criteria"] = [_strip_aliases(c) for c in body["criteria"]]
    return body, paths, problems


def _strip_aliases(item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    out = {k: v for k, v in item.items() if k not in _RENAMED}
    for key, native in _RENAMED.items():
        if key in item and native not in item:
            out[native] = item[key]  # keep the value so only one problem is reported
    method = out.get("scoring_method")
    if isinstance(method, dict) and "schema" in method:
        out["scoring_method"] = {k: v for k, v in method.items() if k != "schema"}
        out["scoring_method"].setdefault("json_schema", method["schema"])
    if isinstance(out.get("subcriteria"), list):
        out["subcriteria"] = [_strip_aliases(c) for c in out["subcriteria"]]
    return out
