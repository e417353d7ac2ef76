"""Where a problem is in the source file, and pydantic errors turned into Problems.

Every loader turns its format into native-shaped data before pydantic validates
it. A :class:`PathMap` remembers, for each node it built (a criterion, an option,
...), the path that node had in the source file and how its keys were called
there, so an error at ``criteria[1].options[0].value`` in the model is reported
as ``criteria[1].levels[0].score`` in a dataknobs file.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from .._errors import Problem
from .._model._rubric import (
    CalibrationExample,
    Criterion,
    CriterionOption,
    HybridMetric,
    Rubric,
    Scale,
    ScoringMethod,
)

__all__ = [
    "Loc",
    "PathMap",
    "join",
    "near_hint",
    "problems_from",
    "show",
    "sort_problems",
    "split_known",
]

Loc = tuple[str | int, ...]

# a key in the native data -> the model its value (or its items) is validated as
_CHILD_MODEL: dict[str, type[BaseModel]] = {
    "criteria": Criterion,
    "subcriteria": Criterion,
    "options": CriterionOption,
    "scoring_method": ScoringMethod,
    "scale": Scale,
    "hybrid_metrics": HybridMetric,
    "examples": CalibrationExample,
}
# pydantic reports a missing aliased field under its alias; native files use the name
_ALIAS_TO_NAME: dict[tuple[type[BaseModel], str], str] = {
    (Criterion, "description"): "requirement",
    (ScoringMethod, "schema"): "json_schema",
}


def join(base: str, *parts: str | int) -> str:
    """Append keys and indices to a path: ``join("criteria", 2, "weight")``."""
    out = base
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out = f"{out}.{p}" if out else p
    return out


def show(value: Any, limit: int = 60) -> str:
    """Render a bad value short and quoted for an error message."""
    if value is None:
        return "null"
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text if isinstance(value, str) else f"{type(value).__name__} {text}"


def near_hint(key: str, allowed: Iterable[str]) -> str:
    """``"; did you mean 'weight'?"`` when ``key`` is close to an allowed key, else ``""``."""
    near = difflib.get_close_matches(key, list(allowed), n=1, cutoff=0.75)
    return f"; did you mean {near[0]!r}?" if near else ""


def split_known(
    raw: Mapping[str, Any],
    known: Iterable[str],
    path: str,
    problems: list[Problem],
    *,
    what: str,
) -> dict[str, Any]:
    """Return the unknown keys of ``raw``; a near miss of a known key is a problem instead.

    Foreign formats ignore keys they do not know; we keep them (in ``metadata``)
    unless they look like a typo of a real key, which would otherwise be lost.
    """
    known = list(known)
    extras: dict[str, Any] = {}
    for key, value in raw.items():
        if key in known:
            continue
        hint = near_hint(str(key), known)
        if hint:
            problems.append(
                Problem(join(path, str(key)), f"unknown {what} key {key!r}{hint} Rename it")
            )
        else:
            extras[str(key)] = value
    return extras


@dataclass(frozen=True)
class _Node:
    path: str
    renames: Mapping[str, str] = field(default_factory=dict)


class PathMap:
    """Maps locations in the native data to paths in the source file."""

    def __init__(self, base: str = "") -> None:
        self._nodes: dict[Loc, _Node] = {(): _Node(base)}

    def add(self, loc: Loc, path: str, renames: Mapping[str, str] | None = None) -> None:
        """Record that the native node at ``loc`` came from ``path`` in the source."""
        self._nodes[loc] = _Node(path, dict(renames or {}))

    def source(self, loc: Loc) -> str:
        """Return the source path of a native location (longest recorded prefix + the rest)."""
        for cut in range(len(loc), -1, -1):
            node = self._nodes.get(loc[:cut])
            if node is not None:
                rest = loc[cut:]
                if rest and isinstance(rest[0], str):
                    rest = (node.renames.get(rest[0], rest[0]), *rest[1:])
                return join(node.path, *rest)
        raise AssertionError("the root is always recorded")  # pragma: no cover


def _model_at(loc: Loc) -> type[BaseModel]:
    model: type[BaseModel] = Rubric
    for el in loc:
        if isinstance(el, str) and el in _CHILD_MODEL:
            model = _CHILD_MODEL[el]
    return model


def _field_names(model: type[BaseModel]) -> list[str]:
    return list(model.model_fields)


def _native_loc(loc: Loc) -> Loc:
    out: list[str | int] = []
    for el in loc:
        if isinstance(el, str):
            el = _ALIAS_TO_NAME.get((_model_at(tuple(out)), el), el)
        out.append(el)
    return tuple(out)


def _last_key(path: str) -> str:
    return path.rsplit(".", 1)[-1].split("[", 1)[0]


def _message(err: Mapping[str, Any], loc: Loc, source: str) -> str:
    kind: str = err["type"]
    value = err.get("input")
    ctx = err.get("ctx") or {}
    last = loc[-1] if loc else ""
    if kind == "missing":
        return f"required key {_last_key(source)!r} is missing; add it"
    if kind == "extra_forbidden":
        allowed = _field_names(_model_at(loc[:-1]))
        hint = near_hint(str(last), allowed) or "; remove it or fix its spelling"
        return f"unknown key {last!r}{hint} (allowed here: {', '.join(allowed)})"
    if kind in ("value_error", "assertion_error") and "error" in ctx:
        return str(ctx["error"])
    if kind.startswith(("float", "int")):
        return f"expected a number, got {show(value)}; write a plain number such as 1.5"
    if kind.startswith("string"):
        return f"expected text, got {show(value)}; write it as a (quoted) string"
    if kind.startswith("bool"):
        return f"expected true or false, got {show(value)}"
    if kind in ("list_type", "tuple_type"):
        return f"expected a list, got {show(value)}; write it as a list of items"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"expected a mapping of keys to values, got {show(value)}"
    if kind in ("literal_error", "enum"):
        return f"{show(value)} is not allowed; use one of {ctx.get('expected', '')}"
    return f"{err.get('msg', 'invalid value')} (got {show(value)})"


def problems_from(error: ValidationError, paths: PathMap) -> list[Problem]:
    """Translate every error of a pydantic validation into a Problem with a source path."""
    out: list[Problem] = []
    for err in error.errors():
        loc = _native_loc(tuple(err["loc"]))
        source = paths.source(loc)
        problem = Problem(source, _message(err, loc, source))
        if problem not in out:
            out.append(problem)
    return out


_TOKEN = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    """Problems in path order (``criteria[2]`` before ``criteria[10]``), duplicates removed."""

    def key(p: Problem) -> list[tuple[int, int, str]]:
        return [
            (0, int(index), "") if index else (1, 0, name) for index, name in _TOKEN.findall(p.path)
        ]

    return sorted(dict.fromkeys(problems), key=key)
