"""Writing rubrics: native YAML/JSON, and conversions to OpenRubricRL and dataknobs."""

from __future__ import annotations

import os
from typing import Any

from .._errors import ConfigError
from .._model._rubric import Rubric
from ._detect import check_format
from ._native import to_native
from ._text import TextKind, dump_kind, render, write_text
from ._to_dataknobs import to_dataknobs
from ._to_openrubricrl import to_openrubricrl

__all__ = ["WRITABLE", "convert_rubric", "dump_data", "dump_file", "dump_text"]

WRITABLE = ("native", "openrubricrl", "dataknobs")


def convert_rubric(rubric: Rubric, to: str = "native") -> tuple[dict[str, Any], list[str]]:
    """Return the rubric as data in format ``to``, and the list of changes the conversion made.

    The list is empty when nothing was lost or invented (always, for ``native``).

    Raises:
        ConfigError: ``to`` cannot be written, or the rubric holds something the
            target format cannot express (the message lists every such thing).
    """
    fmt = check_format(to, allow_auto=False)
    if fmt == "native":
        return to_native(rubric), []
    if fmt == "openrubricrl":
        return to_openrubricrl(rubric)
    if fmt == "dataknobs":
        return to_dataknobs(rubric)

    raise ConfigError(
        f"rubricjudge reads {fmt!r} but does not write it; write one of {', '.join(WRITABLE)}"
    )


def dump_data(rubric: Rubric, *, format: str = "native") -> dict[str, Any]:
    """Return the rubric as plain data (see :func:`convert_rubric` for what changed)."""
    return convert_rubric(rubric, format)[0]


def dump_text(
    rubric: Rubric, *, kind: TextKind = "yaml", format: str = "native", indent: int | None = 2
) -> str:
    """Return the rubric as YAML or JSON text."""
    return render(dump_data(rubric, format=format), kind, indent)


def dump_file(rubric: Rubric, path: str | os.PathLike[str], *, format: str = "native") -> None:
    """Write the rubric to ``path``: JSON for ``.json``, YAML otherwise."""
    write_text(path, dump_text(rubric, kind=dump_kind(path), format=format))
