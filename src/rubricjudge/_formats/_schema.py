"""The JSON Schema of the native rubric format, generated from the model."""

from __future__ import annotations

from typing import Any

from .._model._rubric import Rubric
from ._native import MARKER, MARKER_KEY

__all__ = ["SCHEMA_DIALECT", "rubric_json_schema"]

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def rubric_json_schema() -> dict[str, Any]:
    """Return the JSON Schema (draft 2020-12) a native rubric file must satisfy."""
    generated = Rubric.model_json_schema(by_alias=False, mode="validation")
    gate = generated.get("$defs", {}).get("Criterion", {}).get("properties", {}).get("gate")
    if gate is not None:  # ``gate: true`` (a gate that zeroes the score) is read as a Gate
        gate["anyOf"] = [*gate["anyOf"], {"type": "boolean"}]
    properties = {
        MARKER_KEY: {
            "const": MARKER,
            "description": "Marks a rubricjudge native rubric and its format version.",
        },
        **generated["properties"],
    }
    return {
        "$schema": SCHEMA_DIALECT,
        "title": "rubricjudge rubric (native format)",
        "description": (
            "A rubric in rubricjudge's native format. Criteria state their text under "
            "'requirement'; unknown keys are errors."
        ),
        "type": "object",
        "properties": properties,
        "required": [MARKER_KEY, *generated.get("required", [])],
        "additionalProperties": False,
        "$defs": generated.get("$defs", {}),
    }
