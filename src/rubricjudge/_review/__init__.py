"""Artifacts under review: a store with a status workflow and recorded evaluations."""

from ._artifacts import ArtifactStore
from ._types import Artifact, ArtifactEvaluation, ArtifactStatus, IllegalTransition

__all__ = ["Artifact", "ArtifactEvaluation", "ArtifactStatus", "ArtifactStore", "IllegalTransition"]
