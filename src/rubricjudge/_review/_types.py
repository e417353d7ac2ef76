"""The review flow's values: artifact statuses, the allowed moves, artifacts, evaluations."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .._errors import IllegalTransition
from .._model._reports import EvaluationReport

__all__ = [
    "TRANSITIONS",
    "Artifact",
    "ArtifactEvaluation",
    "ArtifactStatus",
    "IllegalTransition",
    "evaluation_from_row",
]


class ArtifactStatus(StrEnum):
    """Where an artifact is in its review."""

    DRAFT = "draft"
    PENDING_REVIEW = "pending_review"
    IN_REVIEW = "in_review"
    APPROVED = "approved"
    NEEDS_REVISION = "needs_revision"


S = ArtifactStatus
TRANSITIONS: dict[ArtifactStatus, frozenset[ArtifactStatus]] = {
    S.DRAFT: frozenset({S.PENDING_REVIEW}),
    S.PENDING_REVIEW: frozenset({S.IN_REVIEW, S.DRAFT}),
    S.IN_REVIEW: frozenset({S.APPROVED, S.NEEDS_REVISION, S.PENDING_REVIEW}),
    S.NEEDS_REVISION: frozenset({S.DRAFT, S.PENDING_REVIEW}),
    S.APPROVED: frozenset(),
}


@dataclass(frozen=True)
class ArtifactEvaluation:
    """One stored evaluation of an artifact against one rubric version."""

    id: str
    artifact_id: str
    review_round: int
    rubric_id: str
    rubric_version: str
    rubric_hash: str
    score: float | None
    passed: bool
    report: EvaluationReport
    evaluated_at: str


@dataclass(frozen=True)
class Artifact:
    """Content under review and what the review found."""

    id: str
    type: str
    name: str
    content: Any
    rubric_ids: list[str]
    status: ArtifactStatus
    created_at: str
    updated_at: str
    metadata: dict[str, Any] = field(default_factory=dict)
    evaluations: list[ArtifactEvaluation] = field(default_factory=list)


def evaluation_from_row(row: tuple[Any, ...]) -> ArtifactEvaluation:
    """Return a stored evaluation from its database row."""
    return ArtifactEvaluation(
        id=row[0],
        artifact_id=row[1],
        review_round=int(row[2]),
        rubric_id=row[3],
        rubric_version=row[4],
        rubric_hash=row[5],
        score=None if row[6] is None else float(row[6]),
        passed=bool(row[7]),
        report=EvaluationReport.model_validate_json(row[8]),
        evaluated_at=row[9],
    )
