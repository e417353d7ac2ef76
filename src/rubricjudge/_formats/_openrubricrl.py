"""OpenRubricRL rubrics: read (with the schema's checks) into the rubric model.

Checked as OpenRubricRL checks them: ``name``, ``version`` (semver), ``scale``
and ``criteria`` are required; ``domain`` is one of the five domains; each
criterion has ``name``, ``description`` and a ``weight`` in [0, 1]; the weights
sum to 1.0 (within 1e-6); examples carry ``input``, ``output``, ``score`` and
``explanation``; hybrid metrics have a known ``type`` and a weight in [0, 1];
``metadata.created_at`` and ``metadata.updated_at`` are dates and times as
OpenRubricRL's pydantic model reads them (ISO 8601 text, a date, a Unix time).
Subcriteria carry no weights and count equally. Every problem is reported, not
just the first.

A criterion with ``scored_on_scale: true`` (rubricjudge's key; OpenRubricRL's model
ignores keys it does not know) is scored as OpenRubricRL scores every criterion: a
number on the rubric's scale rather than MET / UNMET. It cannot have subcriteria.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter, ValidationError

from .._errors import Problem
from ._paths import PathMap, join, show, split_known

__all__ = ["DOMAINS", "METRIC_TYPES", "WEIGHT_TOLERANCE", "from_openrubricrl"]

DOMAINS = ("code", "dialogue", "creative_writing", "reasoning", "general")
METRIC_TYPES = ("bleu", "rouge", "accuracy", "perplexity", "custom")
WEIGHT_TOLERANCE = 1e-6
_TOP = (
    "name",
    "version",
    "description",
    "domain",
    "scale",
    "criteria",
    "hybrid_metrics",
    "metadata",
)
_CRITERION = ("name", "description", "weight", "examples", "subcriteria", "scored_on_scale")
_EXAMPLE = ("input", "output", "score", "explanation")
_METRIC = ("name", "type", "weight", "config")
_CRITERION_RENAMES = {"requirement": "description"}
_DATES = ("created_at", "updated_at")
_DATETIME: TypeAdapter[datetime] = TypeAdapter(datetime)


def _require(raw: dict[str, Any], keys: tuple[str, ...], path: str, out: list[Problem]) -> None:
    for key in keys:
        if key not in raw:
            out.append(Problem(join(path, key), f"required key {key!r} is missing; add it"))


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _fraction(value: Any, path: str, what: str, out: list[Problem]) -> None:
    if _number(value) and not 0.0 <= value <= 1.0:
        out.append(
            Problem(path, f"{what} {value!r} is outside [0, 1]; OpenRubricRL weights are fractions")
        )


def _examples(raw: Any, path: str, out: list[Problem]) -> None:
    if not isinstance(raw, dict):
        return  # pydantic reports the wrong type
    for level, items in raw.items():
        if not isinstance(items, list):
            continue
        for j, ex in enumerate(items):
            if isinstance(ex, dict):
                _require(ex, _EXAMPLE, join(path, str(level), j), out)
                split_known(ex, _EXAMPLE, join(path, str(level), j), out, what="example")


def _node(raw: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    node = {k: raw[k] for k in keys if raw.get(k) is not None}
    if "description" in raw:
        node["requirement"] = raw["description"]
    return node


def _subcriteria(
    raw: Any, path: str, loc: tuple[str | int, ...], paths: PathMap, out: list[Problem]
) -> Any:
    if not isinstance(raw, list):
        return raw
    subs: list[Any] = []
    for j, sub in enumerate(raw):
        here = join(path, j)
        if not isinstance(sub, dict):
            subs.append(sub)
            continue
        _require(sub, ("name", "description"), here, out)
        extras = split_known(sub, ("name", "description"), here, out, what="subcriterion")
        node = _node(sub, ("name",))
        if extras:
            node["metadata"] = extras
        paths.add((*loc, j), here, _CRITERION_RENAMES)
        subs.append(node)
    return subs


def _on_scale(
    crit: dict[str, Any], scale: Any, here: str, node: dict[str, Any], out: list[Problem]
) -> None:
    flag = crit.get("scored_on_scale")
    if flag is None or flag is False:
        return
    if flag is not True:
        out.append(
            Problem(join(here, "scored_on_scale"), f"expected true or false, got {show(flag)}")
        )
    elif crit.get("subcriteria"):
        out.append(
            Problem(
                join(here, "scored_on_scale"),
                "a criterion scored on the scale is judged as a whole; remove its subcriteria "
                "(or 'scored_on_scale' to score the subcriteria MET / UNMET)",
            )
        )
    elif isinstance(scale, dict):
        node["scale"] = scale  # the rubric's scale; its own problems are reported there


def _criteria(raw: Any, base: str, paths: PathMap, out: list[Problem], scale: Any = None) -> Any:
    path = join(base, "criteria")
    if not isinstance(raw, list):
        return raw
    result: list[Any] = []
    for i, crit in enumerate(raw):
        here = join(path, i)
        if not isinstance(crit, dict):
            result.append(crit)
            continue
        paths.add(("criteria", i), here, _CRITERION_RENAMES)
        _require(crit, ("name", "description", "weight"), here, out)
        extras = split_known(crit, _CRITERION, here, out, what="criterion")
        _fraction(crit.get("weight"), join(here, "weight"), "weight", out)
        node = _node(crit, ("name", "weight", "examples"))
        _on_scale(crit, scale, here, node, out)
        if "examples" in crit:
            _examples(crit["examples"], join(here, "examples"), out)
        if crit.get("subcriteria") is not None:
            node["subcriteria"] = _subcriteria(
                crit["subcriteria"],
                join(here, "subcriteria"),
                ("criteria", i, "subcriteria"),
                paths,
                out,
            )
        if extras:
            node["metadata"] = extras
        result.append(node)
    weights: list[Any] = [c.get("weight") for c in raw if isinstance(c, dict)]
    if weights and all(_number(w) for w in weights):
        total = math.fsum(weights)
        if abs(total - 1.0) > WEIGHT_TOLERANCE:
            out.append(
                Problem(
                    path,
                    f"criterion weights sum to {total:g}, not 1.0; OpenRubricRL weights must add "
                    "up to 1 (divide each weight by their sum)",
                )
            )
    _qualify_duplicate_subcriteria(result)
    return result


def _qualify_duplicate_subcriteria(criteria: list[Any]) -> None:
    """Give a subcriterion the id ``parent.name`` when its name is used elsewhere too.

    OpenRubricRL scopes subcriterion names to their parent; our keys are global.
    """
    names: dict[str, int] = {}
    for c in criteria:
        if isinstance(c, dict):
            subs = c.get("subcriteria")
            subs = subs if isinstance(subs, list) else []
            for node in [c, *(s for s in subs if isinstance(s, dict))]:
                if isinstance(node.get("name"), str):
                    names[node["name"]] = names.get(node["name"], 0) + 1
    for c in criteria:
        if not isinstance(c, dict) or not isinstance(c.get("subcriteria"), list):
            continue
        for s in c["subcriteria"]:
            name = s.get("name") if isinstance(s, dict) else None
            if isinstance(name, str) and names.get(name, 0) > 1:
                s["id"] = f"{c.get('name')}.{s['name']}"


def _metrics(raw: Any, base: str, out: list[Problem]) -> Any:
    if not isinstance(raw, list):
        return raw
    for i, m in enumerate(raw):
        here = join(base, "hybrid_metrics", i)
        if not isinstance(m, dict):
            continue
        _require(m, ("name", "type", "weight"), here, out)
        split_known(m, _METRIC, here, out, what="hybrid metric")
        if "type" in m and m["type"] not in METRIC_TYPES:
            out.append(
                Problem(
                    join(here, "type"),
                    f"{show(m['type'])} is not an OpenRubricRL metric type; use one of "
                    + ", ".join(repr(t) for t in METRIC_TYPES),
                )
            )
        _fraction(m.get("weight"), join(here, "weight"), "weight", out)
    return [
        {k: v for k, v in m.items() if k in _METRIC and v is not None} if isinstance(m, dict) else m
        for m in raw
    ]


def _dates(meta: dict[str, Any], base: str, out: list[Problem]) -> None:
    """Check the metadata dates OpenRubricRL's ``Metadata`` model types as ``datetime``."""
    for key in _DATES:
        value = meta.get(key)
        if value is None:
            continue
        try:
            _DATETIME.validate_python(value)
        except ValidationError:
            out.append(
                Problem(
                    join(base, "metadata", key),
                    f"{show(value)} is not a date and time; OpenRubricRL reads {key} as one, so "
                    "write it in ISO 8601 such as '2024-01-15T10:30:00Z' (or remove it)",
                )
            )


def from_openrubricrl(data: Any, base: str = "") -> tuple[dict[str, Any], PathMap, list[Problem]]:
    """Native-shaped data from an OpenRubricRL rubric, its path map and problems."""
    paths = PathMap(base)
    out: list[Problem] = []
    if not isinstance(data, dict):
        out.append(Problem(base, f"an OpenRubricRL rubric is a mapping, got {show(data)}"))
        return {"criteria": []}, paths, out
    _require(data, ("name", "version", "scale", "criteria"), base, out)
    extras = split_known(data, _TOP, base, out, what="rubric")
    body: dict[str, Any] = {}
    for key in ("name", "version", "description"):
        if data.get(key) is not None:
            body[key] = data[key]
    domain = data.get("domain")
    if domain is not None:
        body["domain"] = domain
        if domain not in DOMAINS:
            out.append(
                Problem(
                    join(base, "domain"),
                    f"{show(domain)} is not an OpenRubricRL domain; use one of "
                    + ", ".join(repr(d) for d in DOMAINS),
                )
            )
    scale = data.get("scale")
    if isinstance(scale, dict):
        _require(scale, ("min", "max"), join(base, "scale"), out)
    if scale is not None:
        body["scale"] = scale
    body["criteria"] = _criteria(data.get("criteria", []), base, paths, out, scale)
    if data.get("hybrid_metrics") is not None:
        body["hybrid_metrics"] = _metrics(data["hybrid_metrics"], base, out)
    meta = data.get("metadata")
    if isinstance(meta, dict):
        _dates(meta, base, out)
    if meta is not None:
        body["metadata"] = {**meta, **extras} if isinstance(meta, dict) else meta
    elif extras:
        body["metadata"] = extras
    return body, paths, out
