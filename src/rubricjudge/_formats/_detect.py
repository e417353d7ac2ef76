"""Which format a piece of rubric data is in.

The rules, first match wins:

1. a mapping whose ``format`` key starts with ``rubricjudge/`` is **native**
   (every native file written by rubricjudge carries ``format: rubricjudge/1``);
2. a list is **autorubric** (a flat list of criteria, or of sections);
3. a mapping with ``rubrics`` is a **dataknobs** config (a list of rubrics);
4. a mapping with ``sections`` or ``rubric`` is **autorubric**;
5. a mapping with ``criteria`` is **dataknobs** when it has ``pass_threshold``
   or ``target_type``, or a criterion has ``levels`` or ``scoring_method``;
   **openrubricrl** when it has ``scale``, ``domain``, ``version`` or
   ``hybrid_metrics``, or its criteria say ``description`` and none says
   ``requirement``; otherwise **autorubric** (``{"criteria": ..., "guidelines": ...}``).

Anything else is not a rubric. Pass ``format=`` to skip detection.
"""

from __future__ import annotations

from typing import Any, Literal

from .._errors import ConfigError, Problem, RubricError
from ._native import MARKER_KEY
from ._paths import near_hint, show

__all__ = ["FORMATS", "FormatName", "check_format", "detect_format"]

FormatName = Literal["native", "autorubric", "openrubricrl", "dataknobs"]
FORMATS: tuple[FormatName, ...] = ("native", "autorubric", "openrubricrl", "dataknobs")
_ALIASES: dict[str, FormatName] = {"rubric": "autorubric"}


def check_format(format: str, *, allow_auto: bool = True) -> str:
    """Normalise a format name (``rubric`` is autorubric's); raise ConfigError if unknown."""
    name = _ALIASES.get(format, format)
    if name in FORMATS or (allow_auto and name == "auto"):
        return name
    valid = (("auto",) if allow_auto else ()) + FORMATS
    raise ConfigError(
        f"unknown rubric format {format!r}{near_hint(str(format), valid)} "
        f"(valid: {', '.join(valid)})"
    )


def _criteria_keys(criteria: Any) -> set[str]:
    keys: set[str] = set()
    if isinstance(criteria, list):
        for c in criteria:
            if isinstance(c, dict):
                keys.update(str(k) for k in c)
    return keys


def detect_format(data: Any, *, source: str | None = None) -> FormatName:
    """Return the format of parsed rubric data (see the module docstring for the rules).

    Raises:
        RubricError: the data matches no format.
    """
    if isinstance(data, dict):
        marker = data.get(MARKER_KEY)
        if isinstance(marker, str) and marker.startswith(("rubricjudge/", "rubricate/")):
            return "native"
        if "rubrics" in data:
            return "dataknobs"
        if "sections" in data or "rubric" in data:
            return "autorubric"
        if "criteria" in data:
            keys = _criteria_keys(data["criteria"])
            if {"pass_threshold", "target_type"} & data.keys() or {
                "levels",
                "scoring_method",
            } & keys:
                return "dataknobs"
            if {"scale", "domain", "version", "hybrid_metrics"} & data.keys():
                return "openrubricrl"
            if "description" in keys and "requirement" not in keys:
                return "openrubricrl"
            return "autorubric"
        found = ", ".join(repr(k) for k in list(data)[:8]) or "none"
        what = f"a mapping without 'criteria' (keys: {found})"
    elif isinstance(data, list):
        return "autorubric"
    else:
        what = show(data)
    raise RubricError(
        [
            Problem(
                "",
                f"not a rubric: expected a list of criteria or a mapping with 'criteria', "
                f"'sections', 'rubric' or 'rubrics', got {what}",
            )
        ],
        source=source,
    )
