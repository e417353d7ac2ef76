"""The versioned rubric registry on SQLite or PostgreSQL (``rubricjudge registry``)."""

from __future__ import annotations

from ._errors import RegistryError, RubricNotFound, StorageError, VersionConflict
from ._registry import RubricRegistry, RubricVersion, open_database, register_backend

__all__ = [
    "RegistryError",
    "RubricNotFound",
    "RubricRegistry",
    "RubricVersion",
    "StorageError",
    "VersionConflict",
    "open_database",
    "register_backend",
]
