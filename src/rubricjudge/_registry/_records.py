"""What the registry stores: rubric versions, their content hash, and registry errors.

The content hash is the SHA-256 of the rubric's canonical native JSON: the
native format's data (``rubricjudge/1``), keys sorted, no whitespace, UTF-8.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from .._errors import RegistryError, RubricNotFound, VersionConflict
from .._formats._native import to_native
from .._model._rubric import Rubric

__all__ = [
    "Bump",
    "RegistryError",
    "RubricNotFound",
    "RubricVersion",
    "VersionConflict",
    "canonical_json",
    "content_hash",
    "same_content",
    "native_data",
]

Bump = Literal["major", "minor", "patch"]


def native_data(rubric: Rubric) -> dict[str, Any]:
    """Return the rubric as native-format data (what the registry stores)."""
    return to_native(rubric)


def canonical_json(data: Any) -> str:
    """Canonical JSON: sorted keys, no whitespace, UTF-8 text."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(rubric: Rubric, *, marker: str | None = None) -> str:
    """SHA-256 (hex) of the rubric's canonical native JSON.

    ``marker`` replaces the format marker first: versions stored under the project's
    old name were hashed with ``rubricate/1`` (see :func:`same_content`).
    """
    data = native_data(rubric)
    if marker is not None:
        data["format"] = marker
    return hashlib.sha256(canonical_json(data).encode("utf-8")).hexdigest()


def same_content(rubric: Rubric, stored_hash: str) -> bool:
    """Whether ``stored_hash`` is ``rubric``'s content hash, under the old name's marker too."""
    return stored_hash in (content_hash(rubric), content_hash(rubric, marker="rubricate/1"))


def _from_content(text: str) -> Rubric:
    data = json.loads(text)
    data.pop("format", None)
    return Rubric.model_validate(data)


def _semver(version: str) -> tuple[int, int, int]:
    major, minor, patch = (int(p) for p in version.split("."))
    return major, minor, patch


def _bumped(version: tuple[int, int, int], bump: Bump) -> str:
    major, minor, patch = version
    if bump == "major":
        return f"{major + 1}.0.0"
    if bump == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch + 1}"


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass(frozen=True)
class RubricVersion:
    """One stored version of a rubric."""

    rubric_id: str
    version: str
    content_hash: str
    target_type: str | None
    name: str | None
    action: str
    created_at: str
    is_latest: bool
    metadata: dict[str, Any] = field(default_factory=dict)
    content: str = field(default="", repr=False)

    @property
    def rubric(self) -> Rubric:
        """The stored rubric."""
        return _from_content(self.content)


_COLUMNS = (
    "v.rubric_id, v.version, v.content_hash, v.target_type, v.name, v.action, v.created_at, "
    "(r.latest_version = v.version), v.metadata, v.content"
)
_FROM = "FROM rubric_versions v JOIN rubrics r ON r.id = v.rubric_id"


def _record(row: tuple[Any, ...]) -> RubricVersion:
    return RubricVersion(
        rubric_id=row[0],
        version=row[1],
        content_hash=row[2],
        target_type=row[3],
        name=row[4],
        action=row[5],
        created_at=row[6],
        is_latest=bool(row[7]),
        metadata=json.loads(row[8]),
        content=row[9],
    )
