"""Writing a rubric as dataknobs, saying what changed and what cannot be expressed.

dataknobs criteria are leveled and scored as a weighted mean, so: binary criteria
become two levels (``unmet`` 0.0 / ``met`` 1.0); a penalty (negative weight)
becomes a positive weight whose levels are ``present`` 0.0 / ``absent`` 1.0;
subcriteria are flattened into their leaves (weights multiplied through); weights
are rescaled to sum to 1; ``llm`` criteria become ``llm_decode`` with a prompt
built from the requirement; N/A options and fields dataknobs lacks are dropped.
Every such change is reported. ``metric`` scoring cannot be expressed.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .._model._rubric import Criterion, CriterionOption, Rubric, ScoringType
from ._report import ConversionReport, criterion_label, relations_cannot

__all__ = ["to_dataknobs"]

_TYPES = {
    ScoringType.FUNCTION: "deterministic",
    ScoringType.JSON_SCHEMA: "schema",
    ScoringType.LLM_DECODE: "llm_decode",
}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.casefold()).strip("_") or "level"


def _leaves(
    c: Criterion, path: str, weight: float, rep: ConversionReport
) -> list[tuple[Criterion, str, float]]:
    if not c.subcriteria:
        return [(c, path, weight)]
    children = c.subcriteria
    if any(s.weight <= 0 for s in children):
        rep.cannot(
            f"{criterion_label(path, c)}: subcriteria with weights <= 0 cannot be flattened "
            "into dataknobs criteria"
        )
        return []
    total = math.fsum(s.weight for s in children)
    rep.change(f"{criterion_label(path, c)}: subcriteria flattened into weighted criteria")
    out: list[tuple[Criterion, str, float]] = []
    for j, s in enumerate(children):
        out.extend(_leaves(s, f"{path}.subcriteria[{j}]", weight * s.weight / total, rep))
    return out


def _binary_levels(c: Criterion, penalty: bool) -> list[dict[str, Any]]:
    if penalty:
        return [
            {"id": "present", "label": "Present", "score": 0.0,
             "description": f"The fault is present: {c.requirement}", "indicators": []},
            {"id": "absent", "label": "Absent", "score": 1.0,
             "description": f"The fault is absent: {c.requirement}", "indicators": []},
        ]  # fmt: skip
    return [
        {"id": "unmet", "label": "Unmet", "score": 0.0,
         "description": f"Not met: {c.requirement}", "indicators": []},
        {"id": "met", "label": "Met", "score": 1.0,
         "description": f"Met: {c.requirement}", "indicators": []},
    ]  # fmt: skip


def _option_levels(options: list[CriterionOption], penalty: bool) -> list[dict[str, Any]]:
    levels: list[dict[str, Any]] = []
    used: set[str] = set()
    for o in options:
        if o.na:
            continue
        lid = o.id or _slug(o.label)
        while lid in used:
            lid += "_"
        used.add(lid)
        levels.append(
            {
                "id": lid,
                "label": o.label,
                "description": o.description or o.label,
                "score": 1.0 - o.value if penalty else o.value,
                "indicators": list(o.indicators),
            }
        )
    return levels


def _method(c: Criterion, here: str, rep: ConversionReport) -> dict[str, Any]:
    m = c.scoring_method
    if m is None or m.type is ScoringType.LLM:
        rep.group("'llm' scoring written as llm_decode with a prompt from the requirement", here)
        prompt = f"{{% raw %}}Criterion: {c.requirement}{{% endraw %}}"
        return {"type": "llm_decode", "decode_prompt": prompt}
    if m.type is ScoringType.METRIC:
        rep.cannot(f"{here}: scoring method 'metric' ({m.metric!r}) has no dataknobs equivalent")
        return {"type": "deterministic"}
    if m.type is ScoringType.MEDIA:
        rep.cannot(f"{here}: scoring method 'media' has no dataknobs equivalent")
        return {"type": "deterministic"}
    if m.type is ScoringType.TRAJECTORY:
        rep.cannot(f"{here}: scoring method 'trajectory' has no dataknobs equivalent")
        return {"type": "deterministic"}
    out: dict[str, Any] = {"type": _TYPES[m.type]}
    for key, value in (
        ("function_ref", m.function_ref),
        ("schema_ref", m.schema_ref),
        ("schema", m.json_schema),
        ("decode_prompt", m.decode_prompt),
        ("decode_output_schema", m.decode_output_schema),
    ):
        if value is not None:
            out[key] = value
    if m.metric is not None or m.config:
        rep.change(
            f"{here}: scoring_method metric/config dropped (dataknobs has no place for them)"
        )
    return out


def _criterion(
    c: Criterion, path: str, weight: float, used: set[str], rep: ConversionReport
) -> dict[str, Any]:
    here = criterion_label(path, c)
    penalty = weight < 0
    cid = c.id or c.name or f"criterion_{len(used) + 1}"
    while cid in used:
        cid += "_"
    used.add(cid)
    if c.scope is not None:
        rep.cannot(f"{here}: scope {c.scope!r} has no dataknobs equivalent")
    if penalty:
        rep.change(
            f"{here}: penalty (negative weight {c.weight:g}) written as a positive weight with "
            "levels present (0.0) / absent (1.0); scores follow dataknobs' weighted mean, not "
            "the autorubric penalty formula"
        )
    if c.scale is not None:
        rep.cannot(f"{here}: scored on a scale; dataknobs criteria choose among levels")
        levels: list[dict[str, Any]] = []
    elif c.options is None:
        levels = _binary_levels(c, penalty)
        if not penalty:
            rep.group("binary criteria written as two levels unmet (0.0) / met (1.0)", here)
    else:
        levels = _option_levels(c.options, penalty)
        if any(o.na for o in c.options):
            rep.change(f"{here}: N/A option dropped (dataknobs levels are always scored)")
    lost = [
        name
        for name, value in (
            ("section", c.section),
            ("examples", c.examples),
            ("aggregation", c.aggregation),
            ("scale_type", c.scale_type if c.scale_type == "nominal" else None),
            ("metadata", c.metadata or None),
        )
        if value is not None
    ]
    if lost:
        rep.change(f"{here}: dataknobs has no place for {', '.join(lost)}; dropped")
    return {
        "id": cid,
        "name": c.name or cid,
        "description": c.requirement,
        "weight": abs(weight),
        "levels": levels,
        "scoring_method": _method(c, here, rep),
        "required": c.required,
    }


def to_dataknobs(rubric: Rubric) -> tuple[dict[str, Any], list[str]]:
    """Return the rubric as dataknobs data, with the list of changes made on the way.

    Raises:
        ConfigError: the rubric holds something dataknobs cannot express.
    """
    rep = ConversionReport("dataknobs")
    leaves: list[tuple[Criterion, str, float]] = []
    for i, c in enumerate(rubric.criteria):
        leaves.extend(_leaves(c, f"criteria[{i}]", c.weight, rep))
    total = math.fsum(abs(w) for _, _, w in leaves)
    if total <= 0:
        rep.cannot("criteria: every weight is 0; dataknobs needs a positive total weight")
        total = 1.0
    elif abs(total - 1.0) > 1e-12:
        rep.change("criteria: weights rescaled to sum to 1.0 (their ratios are unchanged)")
    used: set[str] = set()
    criteria = [_criterion(c, p, w / total, used, rep) for c, p, w in leaves]
    out: dict[str, Any] = {
        "id": rubric.id or _slug(rubric.name or "rubric"),
        "name": rubric.name or rubric.id or "Rubric",
        "description": rubric.description or "",
        "version": rubric.version or "1.0.0",
        "target_type": rubric.target_type or "content",
        "criteria": criteria,
        "pass_threshold": 0.5 if rubric.pass_threshold is None else rubric.pass_threshold,
        "metadata": dict(rubric.metadata),
    }
    filled = [
        f"{key} {out[key]!r}"
        for key, mine in (
            ("id", rubric.id),
            ("name", rubric.name),
            ("version", rubric.version),
            ("target_type", rubric.target_type),
            ("pass_threshold", rubric.pass_threshold),
        )
        if mine is None
    ]
    if filled:
        rep.change(f"dataknobs requires them; filled in: {', '.join(filled)}")
    lost = [
        name
        for name, value in (
            ("guidelines", rubric.guidelines),
            ("scale", rubric.scale),
            ("domain", rubric.domain),
            ("hybrid_metrics", rubric.hybrid_metrics),
        )
        if value is not None
    ]
    if lost:
        rep.change(f"dataknobs has no place for {', '.join(lost)}; dropped")
    relations_cannot(rubric, rep)
    rep.raise_if_impossible()
    return out, rep.all_changes()
