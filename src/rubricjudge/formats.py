"""Rubric files: loading, validating and converting the native and the peers' formats."""

from __future__ import annotations

from ._formats import (
    FORMATS,
    convert_rubric,
    detect_format,
    load_rubrics,
    rubric_json_schema,
    validate_data,
)

__all__ = [
    "FORMATS",
    "convert_rubric",
    "detect_format",
    "load_rubrics",
    "rubric_json_schema",
    "validate_data",
]
