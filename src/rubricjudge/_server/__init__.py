"""The scoring server (``rubricjudge serve``): rubrics over HTTP, behind a bearer token.

The names load on first use, so the CLI reads its defaults (``_server._settings``)
without loading the application.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports as _lazy_exports

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


__getattr__, __dir__ = _lazy_exports(__name__, _LAZY, globals())


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
