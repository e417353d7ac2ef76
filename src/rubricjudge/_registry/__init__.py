"""The versioned rubric registry and the storage it runs on (SQLite, PostgreSQL)."""

from ._db import Database, StorageError
from ._open import default_url, open_database, register_backend
from ._records import (
    RegistryError,
    RubricNotFound,
    RubricVersion,
    VersionConflict,
    canonical_json,
    content_hash,
    native_data,
    same_content,
)
from ._store import RubricRegistry

__all__ = [
    "Database",
    "RegistryError",
    "RubricNotFound",
    "RubricRegistry",
    "RubricVersion",
    "StorageError",
    "VersionConflict",
    "canonical_json",
    "content_hash",
    "same_content",
    "default_url",
    "native_data",
    "open_database",
    "register_backend",
]
