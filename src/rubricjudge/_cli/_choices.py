"""Choices of command-line options that the library defines, read when first needed.

``rubricjudge --help`` registers every command's options; reading the grader kinds or
the verdict methods from their modules there would load the graders (a fifth of the
start-up). An option given a :class:`LazyChoices` needs a ``metavar`` (argparse lists
the choices of an option without one as it registers it); its help may name the
choices with ``%(choices)s``, which is filled in only when that help is shown.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["LazyChoices"]


class LazyChoices(Sequence[str]):
    """The values of ``module.name`` (after ``first``), imported on first use."""

    def __init__(self, module: str, name: str, *, first: Sequence[str] = ()) -> None:
        self._where = (module, name)
        self._first = tuple(first)
        self._values: tuple[str, ...] | None = None

    def _get(self) -> tuple[str, ...]:
        if self._values is None:
            module, name = self._where
            self._values = (*self._first, *getattr(importlib.import_module(module), name))
        return self._values

    def __getitem__(self, index: Any) -> Any:
        return self._get()[index]

    def __len__(self) -> int:
        return len(self._get())

    def __contains__(self, value: object) -> bool:
        return value in self._get()

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __repr__(self) -> str:
        return f"LazyChoices({'.'.join(self._where)})"
