"""Writing a rubric as OpenRubricRL, saying what changed and what cannot be expressed.

Cannot be expressed (ConfigError): negative weights (penalties), subcriteria
nested more than one level, negative subcriterion weights, no positive weight.
Changed and reported: weights rescaled to sum to 1; missing name, version and
scale filled in; options listed in the description; unequal subcriterion weights,
scoring methods, sections and other fields OpenRubricRL lacks are dropped.
"""

from __future__ import annotations

import math
from typing import Any

from .._model._rubric import CalibrationExample, Criterion, Rubric, ScoringType
from ._openrubricrl import DOMAINS, METRIC_TYPES
from ._report import ConversionReport, criterion_label, relations_cannot

__all__ = ["to_openrubricrl"]


def _examples(c: Criterion, here: str, rep: ConversionReport) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for level, items in (c.examples or {}).items():
        kept: list[dict[str, Any]] = []
        for ex in items:
            kept_ex = _example(ex, here, rep)
            if kept_ex is not None:
                kept.append(kept_ex)
        out[level] = kept
    return out


def _example(ex: CalibrationExample, here: str, rep: ConversionReport) -> dict[str, Any] | None:
    if ex.score is None:
        rep.change(f"{here}: examples without a score are dropped (OpenRubricRL requires one)")
        return None
    if ex.input is None or ex.explanation is None:
        rep.change(f"{here}: missing example input/explanation written as empty text")
    return {
        "input": ex.input or "",
        "output": ex.output,
        "score": ex.score,
        "explanation": ex.explanation or "",
    }


def _dropped(c: Criterion, here: str, rep: ConversionReport) -> None:
    lost = []
    if c.method is not ScoringType.LLM:
        lost.append(f"scoring_method {c.method.value!r}")
    if c.section is not None:
        lost.append(f"section {c.section!r}")
    if c.aggregation is not None:
        lost.append(f"aggregation {c.aggregation!r}")
    if not c.required:
        lost.append("required: false")
    if c.metadata:
        lost.append("metadata")
    if c.id is not None and c.name is not None and c.id != c.name:
        lost.append(f"id {c.id!r}")
    if lost:
        rep.change(f"{here}: OpenRubricRL has no place for {', '.join(lost)}; dropped")


def _subcriteria(c: Criterion, here: str, rep: ConversionReport) -> list[dict[str, str]]:
    subs: list[dict[str, str]] = []
    children = c.subcriteria or []
    for j, s in enumerate(children):
        where = criterion_label(f"{here}.subcriteria[{j}]", s)
        if s.subcriteria:
            rep.cannot(f"{where}: subcriteria nested more than one level deep")
        if s.weight < 0:
            rep.cannot(f"{where}: negative weight {s.weight!r}; OpenRubricRL has no penalties")
        if s.options or s.examples or s.method is not ScoringType.LLM:
            rep.change(f"{where}: OpenRubricRL subcriteria hold only a name and a description")
        subs.append(
            {
                "name": s.name or s.id or f"{c.name or 'criterion'}_{j + 1}",
                "description": s.requirement,
            }
        )
    if len({s.weight for s in children}) > 1:
        rep.change(f"{here}: subcriterion weights dropped; OpenRubricRL counts subcriteria equally")
    return subs


def _criterion(c: Criterion, i: int, weight: float, rep: ConversionReport) -> dict[str, Any]:
    here = criterion_label(f"criteria[{i}]", c)
    name = c.name or c.id or f"criterion_{i + 1}"
    if c.name is None:
        rep.change(f"{here}: no name; written as {name!r}")
    out: dict[str, Any] = {"name": name, "description": c.requirement, "weight": weight}
    if c.method is ScoringType.TRAJECTORY:
        rep.cannot(f"{here}: scoring method 'trajectory' has no OpenRubricRL equivalent")
    if c.method is ScoringType.MEDIA:
        rep.cannot(f"{here}: scoring method 'media' has no OpenRubricRL equivalent")
    if c.scope is not None:
        rep.cannot(f"{here}: scope {c.scope!r} has no OpenRubricRL equivalent")
    if c.options is not None:
        listing = "; ".join(
            f"{o.label} = {o.value:g}" + (" (not applicable)" if o.na else "") for o in c.options
        )
        out["description"] = f"{c.requirement}\nOptions: {listing}"
        rep.group("OpenRubricRL has no options; they are listed in the description", here)
    if c.scale is not None:
        out["scored_on_scale"] = True
    if c.examples:
        out["examples"] = _examples(c, here, rep)
    if c.subcriteria:
        out["subcriteria"] = _subcriteria(c, here, rep)
    _dropped(c, here, rep)
    return out


def _scales(r: Rubric, rep: ConversionReport) -> None:
    for i, c in enumerate(r.criteria):
        if c.scale is not None and c.scale != r.scale:
            rep.cannot(
                f"{criterion_label(f'criteria[{i}]', c)}: scored on its own scale "
                f"{c.scale.min:g} to {c.scale.max:g}; OpenRubricRL scores every criterion on "
                "the rubric's scale, so give the rubric that scale"
            )
    for c in r.iter_all():
        if c.scale is not None and c not in r.criteria:
            rep.cannot(f"{c.key or c.requirement[:40]!r}: a subcriterion scored on a scale")


def _weights(r: Rubric, rep: ConversionReport) -> list[float]:
    for i, c in enumerate(r.criteria):
        if c.weight < 0:
            rep.cannot(
                f"{criterion_label(f'criteria[{i}]', c)}: weight {c.weight!r} is a penalty; "
                "OpenRubricRL weights are in [0, 1]. Rephrase it as a positive criterion "
                "(e.g. 'Contains no factual errors') with a positive weight, or remove it"
            )
    total = math.fsum(c.weight for c in r.criteria if c.weight > 0)
    if total <= 0:
        rep.cannot("criteria: no criterion has a positive weight")
        return [0.0 for _ in r.criteria]
    weights = [max(c.weight, 0.0) / total for c in r.criteria]
    if any(abs(w - c.weight) > 1e-12 for w, c in zip(weights, r.criteria, strict=True)):
        rep.change("criteria: weights rescaled to sum to 1.0 (their ratios are unchanged)")
    return weights


def _header(r: Rubric, rep: ConversionReport) -> dict[str, Any]:
    out: dict[str, Any] = {"name": r.name or r.id or "rubric", "version": r.version or "1.0.0"}
    if r.name is None:
        rep.change(f"name: none set; written as {out['name']!r}")
    if r.version is None:
        rep.change("version: none set; written as '1.0.0'")
    if r.description is not None:
        out["description"] = r.description
    if r.domain is not None:
        if r.domain in DOMAINS:
            out["domain"] = r.domain
        else:
            rep.change(f"domain: {r.domain!r} is not an OpenRubricRL domain; dropped")
    scale = r.scale
    if scale is None:
        out["scale"] = {"min": 0.0, "max": 1.0, "type": "continuous"}
        rep.change("scale: none set; written as 0..1 continuous (the normalized score)")
    else:
        out["scale"] = {"min": scale.min, "max": scale.max, "type": scale.type}
    lost = [
        name
        for name, value in (
            ("id", r.id if r.id != r.name else None),
            ("target_type", r.target_type),
            ("pass_threshold", r.pass_threshold),
            ("guidelines", r.guidelines),
        )
        if value is not None
    ]
    if lost:
        rep.change(f"OpenRubricRL has no place for {', '.join(lost)}; dropped")
    return out


def to_openrubricrl(rubric: Rubric) -> tuple[dict[str, Any], list[str]]:
    """Return the rubric as OpenRubricRL data, with the list of changes made on the way.

    Raises:
        ConfigError: the rubric holds something OpenRubricRL cannot express.
    """
    rep = ConversionReport("OpenRubricRL")
    out = _header(rubric, rep)
    weights = _weights(rubric, rep)
    _scales(rubric, rep)
    out["criteria"] = [
        _criterion(c, i, w, rep)
        for i, (c, w) in enumerate(zip(rubric.criteria, weights, strict=True))
    ]
    if rubric.hybrid_metrics:
        out["hybrid_metrics"] = []
        for m in rubric.hybrid_metrics:
            entry: dict[str, Any] = {"name": m.name, "type": m.type, "weight": m.weight}
            if m.config:
                entry["config"] = m.config
            if m.type not in METRIC_TYPES:
                rep.change(f"hybrid_metrics: type {m.type!r} is not one OpenRubricRL knows")
            out["hybrid_metrics"].append(entry)
    if rubric.metadata:
        out["metadata"] = dict(rubric.metadata)
    relations_cannot(rubric, rep)
    rep.raise_if_impossible()
    return out, rep.all_changes()
