"""The scoring server (``rubricjudge serve``): rubrics over HTTP, behind a bearer token."""

from ._app import create_app
from ._openapi import openapi_document
from ._run import is_loopback, read_token, serve
from ._settings import DEFAULT_MAX_BATCH, DEFAULT_MAX_BODY, ServerSettings
from ._sources import DirectorySource, FileSource, RegistrySource, RubricInfo, RubricSource

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
