"""Input of ``grade --pairwise`` (pairs) and ``grade --group`` (groups), one JSON line each.

A pair line: ``submission_a`` and ``submission_b`` (text or ``{thinking, output}``),
optional ``id``, ``query``, ``reference`` and ``label`` (``"a"``, ``"b"`` or ``"tie"``:
a human preference, kept for ``rubricjudge metrics``). A group line: ``submissions``
(a list), optional ``id``, ``query`` and ``reference``. Every line is checked before
the first judge call; a bad one is an error naming the file, the line and the key.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .._errors import ConfigError, RubricJudgeError
from .._graders._inputs import to_submission
from ._grade_io import json_objects, text_field

__all__ = ["GroupItem", "PairItem", "iter_groups", "iter_pairs", "read_source"]

_LABELS = {"a": "a", "b": "b", "tie": "tie", "1": "a", "2": "b", "A": "a", "B": "b"}


@dataclass(frozen=True)
class PairItem:
    """Two submissions to compare, from one input line."""

    line: int
    id: str
    a: Any
    b: Any
    query: str | None
    reference: str | None
    label: str | None


@dataclass(frozen=True)
class GroupItem:
    """The submissions of one group, from one input line."""

    line: int
    id: str
    submissions: list[Any]
    query: str | None
    reference: str | None


def _submission(obj: dict[str, Any], key: str, where: str) -> Any:
    try:
        return to_submission(obj[key], where=key)
    except RubricJudgeError as e:
        raise ConfigError(f"{where}: {e}") from None


def iter_pairs(stream: IO[str], name: str) -> Iterator[PairItem]:
    """Yield the pairs of a JSONL stream.

    Raises:
        ConfigError: naming the file, line and key of the first bad line.
    """
    for n, where, obj in json_objects(stream, name):
        missing = [k for k in ("submission_a", "submission_b") if k not in obj]
        if missing:
            hint = (
                "; this looks like a grade line: drop --pairwise"
                if "submission" in obj
                else "; with --group a line has 'submissions'"
                if "submissions" in obj
                else ""
            )
            raise ConfigError(
                f"{where}: missing {' and '.join(repr(k) for k in missing)} (--pairwise compares "
                f"submission_a with submission_b){hint}"
            )
        label = obj.get("label")
        if label is not None:
            if str(label) not in _LABELS:
                raise ConfigError(
                    f"{where}: label {label!r} is not 'a', 'b' or 'tie' (the better submission)"
                )
            label = _LABELS[str(label)]
        ident = obj.get("id")
        yield PairItem(
            line=n,
            id=str(ident) if ident is not None else str(n),
            a=_submission(obj, "submission_a", where),
            b=_submission(obj, "submission_b", where),
            query=text_field(obj, "query", where),
            reference=text_field(obj, "reference", where),
            label=label,
        )


def iter_groups(stream: IO[str], name: str) -> Iterator[GroupItem]:
    """Yield the groups of a JSONL stream.

    Raises:
        ConfigError: naming the file, line and key of the first bad line.
    """
    for n, where, obj in json_objects(stream, name):
        subs = obj.get("submissions")
        if not isinstance(subs, list) or not subs:
            got = "missing" if subs is None else f"{type(subs).__name__}"
            if isinstance(subs, list):
                got = "an empty list"
            raise ConfigError(
                f"{where}: 'submissions' is {got}; --group needs a list of the submissions to "
                "one query"
            )
        checked = []
        for i, s in enumerate(subs):
            try:
                checked.append(to_submission(s, where=f"submissions[{i}]"))
            except RubricJudgeError as e:
                raise ConfigError(f"{where}: {e}") from None
        ident = obj.get("id")
        yield GroupItem(
            line=n,
            id=str(ident) if ident is not None else str(n),
            submissions=checked,
            query=text_field(obj, "query", where),
            reference=text_field(obj, "reference", where),
        )


def read_source(path: str, reader: Any) -> tuple[int, Any]:
    """Check every line of ``path`` with ``reader`` (ids unique); return (count, items()).

    ``items()`` reads the file again, one line at a time.

    Raises:
        ConfigError: a missing file, a bad line, an id used twice.
    """
    if path == "-":
        raise ConfigError(
            "--pairwise and --group read an INPUT file, not stdin (it is checked first)"
        )
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"input file {path!r} not found")

    def items() -> Iterator[Any]:
        with p.open(encoding="utf-8") as f:
            yield from reader(f, str(p))

    seen: dict[str, int] = {}
    total = 0
    for it in items():
        total += 1
        first = seen.setdefault(it.id, it.line)
        if first != it.line:
            raise ConfigError(
                f"{p} line {it.line}: the id {it.id!r} of line {first} again; give each line "
                "its own id"
            )
    return total, items
