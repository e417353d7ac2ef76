"""dataknobs' async registry and artifact names over rubricjudge's registry and review flow.

These clash with rubricjudge's own (its :class:`rubricjudge.RubricRegistry` is
synchronous), so they are reached through :mod:`rubricjudge.dataknobs` only. Each
is a thin adapter: storage, versioning and the review flow are rubricjudge's
(:class:`rubricjudge.RubricRegistry`, :class:`rubricjudge.ArtifactStore`); blocking
database work runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._model._rubric import Rubric
from .._registry._db import Database
from .._registry._open import open_database
from .._registry._records import RubricNotFound
from .._registry._store import RubricRegistry as _SyncRegistry
from .._review._artifacts import ArtifactStore
from .._review._types import Artifact, ArtifactEvaluation
from ._names import RubricExecutor

__all__ = [
    "ArtifactRegistry",
    "ArtifactTypeDefinition",
    "AsyncMemoryDatabase",
    "RubricRegistry",
    "create_provenance",
]


def AsyncMemoryDatabase() -> Database:  # noqa: N802 - dataknobs' class name
    """A throwaway database (dataknobs' in-memory one), removed when it is garbage collected.

    rubricjudge's databases are SQLite files or PostgreSQL, so this is an SQLite file
    in a private temporary directory.
    """
    where = Path(tempfile.mkdtemp(prefix="rubricjudge-db-"))
    db = open_database(where / "store.sqlite3")
    weakref.finalize(db, shutil.rmtree, where, True)
    return db


class RubricRegistry:
    """dataknobs' async rubric registry over :class:`rubricjudge.RubricRegistry`.

    Args:
        db: a database (:func:`AsyncMemoryDatabase`, or :func:`open_database`'s),
            a path or a URL, as rubricjudge's registry takes.
    """

    def __init__(self, db: Database | str | None = None) -> None:
        self.store = _SyncRegistry(db)

    @classmethod
    async def from_config(
        cls, config: Mapping[str, Any], db: Database | str | None = None
    ) -> RubricRegistry:
        """A registry with every rubric of a ``{"rubrics": [...]}`` config registered."""
        out = cls.__new__(cls)
        out.store = await asyncio.to_thread(_SyncRegistry.from_config, config, db)
        return out

    async def register(self, rubric: Rubric) -> str:
        """Store a new rubric; returns its id."""
        rec = await asyncio.to_thread(self.store.register, rubric)
        return rec.rubric_id

    async def update(self, rubric: Rubric) -> str:
        """Store a new version (the rubric's version already bumped); returns its id."""
        rec = await asyncio.to_thread(self.store.update, rubric)
        return rec.rubric_id

    async def get(self, rubric_id: str, version: str | None = None) -> Rubric | None:
        """The latest (or the given) version of a rubric, or None when there is none."""
        try:
            return await asyncio.to_thread(self.store.get, rubric_id, version)
        except RubricNotFound:
            return None

    async def get_for_target(self, target_type: str) -> list[Rubric]:
        """The latest version of every rubric for ``target_type``."""
        return await asyncio.to_thread(self.store.get_for_target, target_type)

    async def list_all(self) -> list[Rubric]:
        """The latest version of every rubric."""
        recs = await asyncio.to_thread(self.store.list_all)
        return [r.rubric for r in recs]

    async def delete(self, rubric_id: str) -> bool:
        """Remove the latest pointer (every version is kept); False when there was none."""
        try:
            await asyncio.to_thread(self.store.delete, rubric_id)
        except RubricNotFound:
            return False
        return True


@dataclass(frozen=True)
class ArtifactTypeDefinition:
    """An artifact type and the rubric ids every artifact of it is reviewed against."""

    id: str
    rubrics: list[str] = field(default_factory=list)
    description: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


def create_provenance(created_by: str, creation_method: str, **details: Any) -> dict[str, Any]:
    """Who made an artifact and how, with a timestamp; stored in its metadata."""
    return {
        "created_by": created_by,
        "creation_method": creation_method,
        "created_at": datetime.now(UTC).isoformat(),
        **details,
    }


def _evaluation_dict(ev: ArtifactEvaluation, artifact: Artifact) -> dict[str, Any]:
    rep = ev.report
    return {
        "id": ev.id,
        "rubric_id": ev.rubric_id,
        "rubric_version": ev.rubric_version,
        "target_id": artifact.id,
        "target_type": artifact.type,
        "criterion_results": [
            {
                "criterion_id": r.key,
                "level_id": r.level_id,
                "score": r.score_value,
                "evidence": list(r.evidence),
                "notes": r.notes or (r.error or ""),
            }
            for r in rep.criterion_results
        ],
        "weighted_score": ev.score,
        "passed": ev.passed,
        "feedback_summary": rep.feedback_summary or "",
        "evaluated_at": ev.evaluated_at,
    }


class ArtifactRegistry:
    """dataknobs' async artifact registry over :class:`rubricjudge.ArtifactStore`.

    Args:
        db: where artifacts are stored (e.g. :func:`AsyncMemoryDatabase`).
        rubric_registry: where the rubrics are.
        rubric_executor: whose functions, judge and scoring policy evaluate them.
        type_definitions: artifact types and the rubric ids that apply to each.
    """

    def __init__(
        self,
        db: Database,
        rubric_registry: RubricRegistry,
        rubric_executor: RubricExecutor | None = None,
        type_definitions: Mapping[str, ArtifactTypeDefinition] | None = None,
    ) -> None:
        executor = rubric_executor or RubricExecutor()
        self.type_definitions = dict(type_definitions or {})
        self.store = ArtifactStore(
            rubric_registry.store,
            judge=executor.llm,
            functions=executor.function_registry,
            type_rubrics={k: list(v.rubrics) for k, v in self.type_definitions.items()},
            feedback=executor.feedback,
            policy=executor.policy,
            db=db,
        )

    async def create(
        self,
        artifact_type: str,
        name: str,
        content: Any,
        provenance: Mapping[str, Any] | None = None,
        rubric_ids: Sequence[str] = (),
        metadata: Mapping[str, Any] | None = None,
    ) -> Artifact:
        """Store a new draft artifact and return it."""
        meta = dict(metadata or {})
        if provenance is not None:
            meta["provenance"] = dict(provenance)
        return await asyncio.to_thread(
            self.store.create, artifact_type, name, content, rubric_ids=rubric_ids, metadata=meta
        )

    async def get(self, artifact_id: str) -> Artifact:
        """The artifact with its status and stored evaluations."""
        return await asyncio.to_thread(self.store.get, artifact_id)

    async def submit_for_review(self, artifact_id: str) -> list[dict[str, Any]]:
        """Review the artifact against every rubric that applies; the evaluations as dicts."""
        evaluations = await self.store.submit_for_review(artifact_id)
        artifact = await self.get(artifact_id)
        return [_evaluation_dict(ev, artifact) for ev in evaluations]
