"""Put a wrapper around every judge a grader holds, without the grader's help.

A grader keeps its judge(s) in attributes: a judge, a list of judges, or a list
of specs that each carry a ``judge``. :func:`bind_judges` returns a shallow copy
of the grader with each of those replaced by ``wrap(judge)``; the caller's grader
is left untouched. A grader can take over with a ``with_judges(wrap)`` method.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from .._judges._base import Judge

__all__ = ["bind_judges", "judge_names"]

Wrap = Callable[[Judge], Judge]
G = TypeVar("G")


def _is_judge(value: Any) -> bool:
    if isinstance(value, type) or not isinstance(getattr(value, "name", None), str):
        return False
    return inspect.iscoroutinefunction(getattr(value, "judge", None))


def _wrap_value(value: Any, wrap: Wrap, found: list[str]) -> Any:
    if _is_judge(value):
        found.append(value.name)
        return wrap(value)
    if isinstance(value, list | tuple):
        items = [_wrap_value(v, wrap, found) for v in value]
        return type(value)(items) if isinstance(value, tuple) else items
    inner = getattr(value, "judge", None)
    if inner is not None and _is_judge(inner) and not callable(getattr(value, "grade", None)):
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            found.append(inner.name)
            return dataclasses.replace(value, judge=wrap(inner))
        clone = copy.copy(value)
        try:
            object.__setattr__(clone, "judge", wrap(inner))
        except (AttributeError, TypeError):
            return value
        found.append(inner.name)
        return clone
    return value


def bind_judges(grader: G, wrap: Wrap) -> tuple[G, list[str]]:
    """Return a copy of ``grader`` whose judges are wrapped, and the names of those judges.

    A grader holding no judge is returned as it is.
    """
    hook = getattr(grader, "with_judges", None)
    if callable(hook):
        names: list[str] = []

        def tracking(j: Judge) -> Judge:
            names.append(j.name)
            return wrap(j)

        return hook(tracking), names
    found: list[str] = []
    clone = copy.copy(grader)
    members = getattr(clone, "members", None)
    if callable(members):
        # rubricjudge's Grader resolves its judge specs lazily; resolve them on the copy
        members()
    attrs = getattr(clone, "__dict__", {})
    resolved = "_members" in attrs and attrs["_members"] is not None
    for attr, value in list(attrs.items()):
        if resolved and attr == "_specs":
            continue  # the resolved members replace the specs
        new = _wrap_value(value, wrap, found)
        if new is not value:
            object.__setattr__(clone, attr, new)
    return (clone, found) if found else (grader, found)


def judge_names(grader: object) -> list[str]:
    """Return the names of the judges ``grader`` holds (as :func:`bind_judges` finds them)."""
    return bind_judges(grader, lambda j: j)[1]
