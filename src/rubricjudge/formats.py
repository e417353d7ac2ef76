"""Rubric files: loading, validating and converting the native and the peers' formats."""

from __future__ import annotations

from ._formats._detect import FORMATS, detect_format
from ._formats._dump import convert_rubric
from ._formats._load import load_rubrics, validate_data
from ._formats._schema import rubric_json_schema

__all__ = [
    "FORMATS",
    "convert_rubric",
    "detect_format",
    "load_rubrics",
    "rubric_json_schema",
    "validate_data",
]
