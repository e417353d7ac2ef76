"""Artifacts under review: a store with a status workflow and recorded evaluations."""

from __future__ import annotations

from ._errors import IllegalTransition
from ._review._artifacts import ArtifactStore
from ._review._types import Artifact, ArtifactEvaluation, ArtifactStatus

__all__ = [
    "Artifact",
    "ArtifactEvaluation",
    "ArtifactStatus",
    "ArtifactStore",
    "IllegalTransition",
]
