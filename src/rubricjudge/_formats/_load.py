"""Loading and validating rubrics in any supported format.

Loading is data only: JSON, or YAML through ``yaml.safe_load``; a
``function_ref`` or ``schema_ref`` is kept as a string and never imported or
fetched. Every problem in the data is collected before raising, each with its
path inside the source (``criteria[2].weight``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from .._errors import Problem, RubricError
from .._model._rubric import Rubric
from ._autorubric import from_autorubric
from ._dataknobs import from_dataknobs
from ._detect import FormatName, check_format, detect_format
from ._native import from_native
from ._openrubricrl import from_openrubricrl
from ._paths import PathMap, join, problems_from, show, sort_problems
from ._text import TextKind, parse_text, read_source

__all__ = [
    "Checked",
    "check_data",
    "load_data",
    "load_file",
    "load_rubrics",
    "load_text",
    "validate_data",
]

_Reader = Callable[[Any, str], tuple[dict[str, Any], PathMap, list[Problem]]]
_READERS: dict[str, _Reader] = {
    "native": from_native,
    "autorubric": from_autorubric,
    "openrubricrl": from_openrubricrl,
    "dataknobs": from_dataknobs,
}


@dataclass
class Checked:
    """What checking rubric data found: its format, the rubrics built and every problem."""

    format: FormatName | None
    rubrics: list[Rubric] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _build(data: Any, fmt: str, base: str) -> tuple[Rubric | None, list[Problem]]:
    body, paths, problems = _READERS[fmt](data, base)
    if not body.get("criteria") and problems:
        return None, problems  # nothing to validate; pydantic would only repeat it
    try:
        rubric = Rubric.model_validate(body, by_alias=False, by_name=True)
    except ValidationError as e:
        problems = [*problems, *(p for p in problems_from(e, paths) if p not in problems)]
        return None, problems
    return (None, problems) if problems else (rubric, [])


def _config(data: dict[str, Any], fmt: str) -> Checked:
    """Check every rubric of a dataknobs-style ``{"rubrics": [...]}`` config."""
    items = data["rubrics"]
    result = Checked("dataknobs" if fmt == "auto" else fmt)  # type: ignore[arg-type]
    if not isinstance(items, list) or not items:
        result.problems.append(
            Problem("rubrics", f"expected a non-empty list of rubrics, got {show(items)}")
        )
        return result
    for i, item in enumerate(items):
        one = fmt if fmt != "auto" else _detect_quiet(item)
        if one is None:
            result.problems.append(
                Problem(join("rubrics", i), f"not a rubric: expected a mapping, got {show(item)}")
            )
            continue
        rubric, problems = _build(item, one, join("rubrics", i))
        result.problems.extend(sort_problems(problems))
        if rubric is not None:
            result.rubrics.append(rubric)
    return result


def _detect_quiet(data: Any) -> str | None:
    try:
        return detect_format(data)
    except RubricError:
        return None


def check_data(data: Any, *, format: str = "auto", source: str | None = None) -> Checked:
    """Check parsed data: detect (or take) its format and collect every problem."""
    fmt = check_format(format)
    if isinstance(data, dict) and "rubrics" in data and fmt in ("auto", "dataknobs"):
        return _config(data, fmt)
    if fmt == "auto":
        try:
            fmt = detect_format(data, source=source)
        except RubricError as e:
            return Checked(None, [], e.problems)
    rubric, problems = _build(data, fmt, "")
    return Checked(fmt, [rubric] if rubric is not None else [], sort_problems(problems))  # type: ignore[arg-type]


def validate_data(data: Any, format: str = "auto", *, source: str | None = None) -> list[Problem]:
    """Every problem in parsed rubric data (empty when it is valid)."""
    return check_data(data, format=format, source=source).problems


def load_data(data: Any, *, format: str = "auto", source: str | None = None) -> Rubric:
    """Build a rubric from parsed data in any supported format.

    Args:
        data: a list or mapping as parsed from JSON/YAML (a Rubric is returned as is).
        format: ``auto`` (detect), ``native``, ``autorubric``, ``openrubricrl`` or
            ``dataknobs``.
        source: the file the data came from, named in errors.

    Raises:
        RubricError: the data is invalid; ``problems`` lists every problem found.
        ConfigError: ``format`` is not a known format.
    """
    if isinstance(data, Rubric):
        return data
    checked = check_data(data, format=format, source=source)
    if checked.problems:
        raise RubricError(checked.problems, source=source)
    if len(checked.rubrics) != 1:
        names = ", ".join(repr(r.id or r.name) for r in checked.rubrics)
        raise RubricError(
            [
                Problem(
                    "rubrics",
                    f"holds {len(checked.rubrics)} rubrics ({names}); load them with "
                    "load_rubrics(), or keep one rubric in the file",
                )
            ],
            source=source,
        )
    return checked.rubrics[0]


def load_text(
    text: str, *, kind: TextKind = "yaml", format: str = "auto", source: str | None = None
) -> Rubric:
    """Parse a rubric from JSON or YAML text."""
    return load_data(parse_text(text, kind, source), format=format, source=source)


def load_file(source: Any, *, format: str = "auto") -> Rubric:
    """Load a rubric from a path or a file object (JSON or YAML, detected)."""
    data, _, name = read_source(source)
    return load_data(data, format=format, source=name)


def load_rubrics(source: Any, *, format: str = "auto") -> list[Rubric]:
    """Every rubric in a dataknobs ``{"rubrics": [...]}`` config (or a one-rubric file).

    ``source`` is parsed data, a path or a file object.
    """
    name: str | None = None
    if not isinstance(source, dict | list):
        source, _, name = read_source(source)
    checked = check_data(source, format=format, source=name)
    if checked.problems:
        raise RubricError(checked.problems, source=name)
    return checked.rubrics
