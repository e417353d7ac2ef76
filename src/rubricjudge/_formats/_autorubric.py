"""autorubric and ``rubric`` package files: criteria lists, sections, wrappers.

Accepted shapes (as autorubric's ``validate_and_create_criteria`` reads them):
a flat list of criteria; a list mixing criteria and sections (a section is a
mapping with a ``criteria`` list); ``{"sections": [...]}``; ``{"rubric": <any of
these>}``; ``{"criteria": [...], "guidelines": "..."}``. Section names (``title``,
``name``, ``section`` or ``id``) are kept on ``Criterion.section``, which
autorubric drops. Keys autorubric ignores are kept in ``metadata``, except near
misses of real keys (``wieght``), which are errors.
"""

from __future__ import annotations

from typing import Any

from .._errors import Problem
from .._model._rubric import Criterion
from ._paths import PathMap, join, show, split_known

__all__ = ["from_autorubric"]

_CRITERION_KEYS = tuple(Criterion.model_fields)
_SECTION_NAME_KEYS = ("title", "name", "section", "id")
_SECTION_KEYS = ("criteria", *_SECTION_NAME_KEYS, "description")
_HEADER_KEYS = ("id", "name", "title", "description", "guidelines")
_WRAPPER_KEYS = ("rubric", "sections", "criteria", *_HEADER_KEYS, "metadata")


def _header(data: dict[str, Any], path: str, out: dict[str, Any], problems: list[Problem]) -> None:
    for key in ("id", "name", "description"):
        if isinstance(data.get(key), str):
            out[key] = data[key]
    if "name" not in out and isinstance(data.get("title"), str):
        out["name"] = data["title"]
    if "guidelines" in data:
        g = data["guidelines"]
        if g is not None and not isinstance(g, str):
            problems.append(
                Problem(join(path, "guidelines"), f"expected text or null, got {show(g)}")
            )
        elif g is not None and g.strip():
            if "guidelines" in out:
                problems.append(
                    Problem(
                        join(path, "guidelines"),
                        "guidelines are given both beside and inside 'rubric'; give them once",
                    )
                )
            out["guidelines"] = g
    extras = split_known(data, _WRAPPER_KEYS, path, problems, what="rubric")
    extras.update({k: data[k] for k in ("id", "name", "title") if k in data and k not in out})
    if isinstance(data.get("metadata"), dict):
        extras = {**extras, **data["metadata"]}
    if extras:
        out["metadata"] = {**out.get("metadata", {}), **extras}


def _entries(data: Any, out: dict[str, Any], problems: list[Problem], base: str) -> tuple[Any, str]:
    """Return the list of criteria/sections and its path, reading the wrappers."""
    if not isinstance(data, dict):
        return data, base
    _header(data, base, out, problems)
    if "rubric" in data:
        inner, path = data["rubric"], join(base, "rubric")
        if isinstance(inner, dict):
            _header(inner, path, out, problems)
            for key in ("sections", "criteria"):
                if key in inner:
                    return inner[key], join(path, key)
            problems.append(
                Problem(path, "'rubric' must be a list, or a mapping with 'sections' or 'criteria'")
            )
            return [], path
        return inner, path
    for key in ("sections", "criteria"):
        if key in data:
            return data[key], join(base, key)
    problems.append(
        Problem(
            base,
            "expected a list of criteria, or a mapping with 'criteria', 'sections' or 'rubric'",
        )
    )
    return [], base


def _criterion(raw: dict[str, Any], path: str, section: str | None, problems: list[Problem]) -> Any:
    out = {k: v for k, v in raw.items() if k in _CRITERION_KEYS}
    if "description" in raw and "requirement" not in raw:
        problems.append(
            Problem(
                join(path, "description"),
                "autorubric criteria state their text under 'requirement'; rename "
                "'description' to 'requirement' (or load the file with format='openrubricrl')",
            )
        )
        out["requirement"] = raw["description"]
    extras = split_known(raw, (*_CRITERION_KEYS, "description"), path, problems, what="criterion")
    if "description" in raw and "requirement" in raw:
        extras["description"] = raw["description"]
    if extras:
        meta = out.get("metadata")
        out["metadata"] = {**extras, **meta} if isinstance(meta, dict) else extras
    if section is not None and "section" not in out:
        out["section"] = section
    return out


def from_autorubric(data: Any, base: str = "") -> tuple[dict[str, Any], PathMap, list[Problem]]:
    """Native-shaped data from an autorubric / ``rubric`` file, its path map and problems."""
    paths = PathMap(base)
    problems: list[Problem] = []
    body: dict[str, Any] = {}
    entries, path = _entries(data, body, problems, base)
    criteria: list[Any] = []
    if not isinstance(entries, list):
        problems.append(Problem(path, f"expected a list of criteria, got {show(entries)}"))
        entries = []
    for i, item in enumerate(entries):
        here = join(path, i)
        if not isinstance(item, dict):
            problems.append(
                Problem(here, f"expected a criterion or a section (a mapping), got {show(item)}")
            )
            continue
        if "criteria" not in item:
            paths.add(("criteria", len(criteria)), here)
            criteria.append(_criterion(item, here, None, problems))
            continue
        name = next((item[k] for k in _SECTION_NAME_KEYS if item.get(k) is not None), None)
        split_known(item, _SECTION_KEYS, here, problems, what="section")
        inner = item["criteria"]
        if not isinstance(inner, list):
            problems.append(
                Problem(join(here, "criteria"), f"expected a list of criteria, got {show(inner)}")
            )
            continue
        for j, raw in enumerate(inner):
            where = join(here, "criteria", j)
            if not isinstance(raw, dict):
                problems.append(
                    Problem(where, f"expected a criterion (a mapping), got {show(raw)}")
                )
                continue
            paths.add(("criteria", len(criteria)), where)
            section = None if name is None else str(name)
            criteria.append(_criterion(raw, where, section, problems))
    if not criteria and not problems:
        problems.append(Problem(path, "no criteria found; list at least one criterion"))
    body["criteria"] = criteria
    return body, paths, problems
