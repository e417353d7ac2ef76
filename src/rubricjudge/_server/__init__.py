"""The scoring server (``rubricjudge serve``): rubrics over HTTP, behind a bearer token.

The names load on first use, so the CLI reads its defaults (``_server._settings``)
without loading the application.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._app import create_app
    from ._openapi import openapi_document
    from ._run import is_loopback, read_token, serve
    from ._settings import DEFAULT_MAX_BATCH, DEFAULT_MAX_BODY, ServerSettings
    from ._sources import DirectorySource, FileSource, RegistrySource, RubricInfo, RubricSource

_LAZY: dict[str, str] = {
    "create_app": "._app",
    "openapi_document": "._openapi",
    "is_loopback": "._run",
    "read_token": "._run",
    "serve": "._run",
    "DEFAULT_MAX_BATCH": "._settings",
    "DEFAULT_MAX_BODY": "._settings",
    "ServerSettings": "._settings",
    "DirectorySource": "._sources",
    "FileSource": "._sources",
    "RegistrySource": "._sources",
    "RubricInfo": "._sources",
    "RubricSource": "._sources",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "DEFAULT_MAX_BATCH",
    "DEFAULT_MAX_BODY",
    "DirectorySource",
    "FileSource",
    "RegistrySource",
    "RubricInfo",
    "RubricSource",
    "ServerSettings",
    "create_app",
    "is_loopback",
    "openapi_document",
    "read_token",
    "serve",
]
