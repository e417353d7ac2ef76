"""The versioned rubric registry on SQLite or PostgreSQL (``rubricjudge registry``)."""

from __future__ import annotations

from ._errors import RegistryError, RubricNotFound, StorageError, VersionConflict
from ._registry._open import open_database, register_backend
from ._registry._records import RubricVersion
from ._registry._store import RubricRegistry

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
