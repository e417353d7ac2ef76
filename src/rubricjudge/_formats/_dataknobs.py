"""dataknobs rubrics (and ``{"rubrics": [...]}`` configs) read into the rubric model.

Levels become options (``option.id`` = level id, ``value`` = score, with their
description and indicators); scoring methods map ``deterministic`` ->
``function``, ``schema`` -> ``json_schema``, ``llm_decode`` -> ``llm_decode``.
A ``function_ref`` is kept as a name: loading never imports it.
"""

from __future__ import annotations

from typing import Any

from .._errors import Problem
from .._model._rubric import ScoringType
from ._paths import Loc, PathMap, join, show, split_known

__all__ = ["SCORING_TYPES", "from_dataknobs"]

# dataknobs scoring type -> ours
SCORING_TYPES: dict[str, ScoringType] = {
    "deterministic": ScoringType.FUNCTION,
    "schema": ScoringType.JSON_SCHEMA,
    "llm_decode": ScoringType.LLM_DECODE,
}
_RUBRIC = ("id", "name", "description", "version", "target_type", "criteria", "pass_threshold")
_CRITERION = ("id", "name", "description", "weight", "levels", "scoring_method", "required")
_LEVEL = ("id", "label", "description", "score", "indicators")
_METHOD = ("type", "function_ref", "schema_ref", "schema", "decode_prompt", "decode_output_schema")


def _require(raw: dict[str, Any], keys: tuple[str, ...], path: str, out: list[Problem]) -> None:
    for key in keys:
        if key not in raw:
            out.append(Problem(join(path, key), f"required key {key!r} is missing; add it"))


def _method(raw: Any, path: str, loc: Loc, paths: PathMap, out: list[Problem]) -> Any:
    if not isinstance(raw, dict):
        return raw
    paths.add(loc, path, {"json_schema": "schema"})
    _require(raw, ("type",), path, out)
    extras = split_known(raw, _METHOD, path, out, what="scoring_method")
    node: dict[str, Any] = {k: v for k, v in raw.items() if k in _METHOD[1:] and v is not None}
    if "schema" in node:
        node["json_schema"] = node.pop("schema")
    kind = raw.get("type")
    if isinstance(kind, str) and kind in SCORING_TYPES:
        node["type"] = SCORING_TYPES[kind].value
    elif "type" in raw:
        out.append(
            Problem(
                join(path, "type"),
                f"{show(kind)} is not a dataknobs scoring type; use one of "
                + ", ".join(repr(t) for t in SCORING_TYPES),
            )
        )
    if extras:
        node["config"] = extras
    return node


def _levels(raw: Any, path: str, loc: Loc, paths: PathMap, out: list[Problem]) -> Any:
    if not isinstance(raw, list):
        return raw
    options: list[Any] = []
    for j, level in enumerate(raw):
        here = join(path, j)
        if not isinstance(level, dict):
            options.append(level)
            continue
        paths.add((*loc, j), here, {"value": "score"})
        _require(level, ("id", "label", "description", "score"), here, out)
        split_known(level, _LEVEL, here, out, what="level")
        option = {k: level[k] for k in ("id", "label", "description", "indicators") if k in level}
        if "score" in level:
            option["value"] = level["score"]
        options.append(option)
    if not raw:
        out.append(Problem(path, "a criterion needs at least one level; list its levels"))
    return options


def _criterion(raw: dict[str, Any], i: int, path: str, paths: PathMap, out: list[Problem]) -> Any:
    paths.add(("criteria", i), path, {"requirement": "description", "options": "levels"})
    _require(raw, ("id", "name", "description", "weight", "levels", "scoring_method"), path, out)
    extras = split_known(raw, _CRITERION, path, out, what="criterion")
    node: dict[str, Any] = {k: raw[k] for k in ("id", "name", "weight", "required") if k in raw}
    if "description" in raw:
        node["requirement"] = raw["description"]
    if "levels" in raw:
        node["options"] = _levels(
            raw["levels"], join(path, "levels"), ("criteria", i, "options"), paths, out
        )
    if raw.get("scoring_method") is not None:
        node["scoring_method"] = _method(
            raw["scoring_method"],
            join(path, "scoring_method"),
            ("criteria", i, "scoring_method"),
            paths,
            out,
        )
    if extras:
        node["metadata"] = extras
    return node


def from_dataknobs(data: Any, base: str = "") -> tuple[dict[str, Any], PathMap, list[Problem]]:
    """Native-shaped data from one dataknobs rubric, its path map and problems."""
    paths = PathMap(base)
    out: list[Problem] = []
    if not isinstance(data, dict):
        out.append(Problem(base, f"a dataknobs rubric is a mapping, got {show(data)}"))
        return {"criteria": []}, paths, out
    _require(data, _RUBRIC, base, out)
    extras = split_known(data, (*_RUBRIC, "metadata"), base, out, what="rubric")
    body: dict[str, Any] = {k: data[k] for k in _RUBRIC if k != "criteria" and k in data}
    if isinstance(body.get("version"), int | float) and not isinstance(body["version"], bool):
        out.append(
            Problem(
                join(base, "version"),
                f"version {body['version']!r} is a number; quote it as a semver string "
                "such as '1.0.0'",
            )
        )
        body.pop("version")
    criteria = data.get("criteria", [])
    if isinstance(criteria, list):
        body["criteria"] = [
            _criterion(c, i, join(base, "criteria", i), paths, out) if isinstance(c, dict) else c
            for i, c in enumerate(criteria)
        ]
    else:
        body["criteria"] = criteria
    meta = data.get("metadata")
    if meta is not None:
        body["metadata"] = {**meta, **extras} if isinstance(meta, dict) else meta
    elif extras:
        body["metadata"] = extras
    return body, paths, out
