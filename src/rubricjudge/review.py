"""Artifacts under review: a store with a status workflow and recorded evaluations."""

from __future__ import annotations

from ._errors import IllegalTransition
from ._review import Artifact, ArtifactEvaluation, ArtifactStatus, ArtifactStore

__all__ = [
    "Artifact",
    "ArtifactEvaluation",
    "ArtifactStatus",
    "ArtifactStore",
    "IllegalTransition",
]
