"""Names a package exports but imports only when first used.

``import rubricjudge`` and the CLI's start must not load the graders, judges, SDKs or
numpy; a package lists its names in a table and gets ``__getattr__`` and ``__dir__``
(PEP 562) from :func:`lazy_exports`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, names: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``; ``names`` maps a name to its module.

    A name is imported on first use and kept in ``namespace`` (the package's globals),
    so ``__getattr__`` runs once per name.
    """

    def getattr_(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(names))

    return getattr_, dir_
