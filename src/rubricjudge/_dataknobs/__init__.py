"""dataknobs-bots' rubric and artifact names over rubricjudge's objects."""

from ._names import RubricCriterion, RubricExecutor, RubricLevel
from ._review import (
    ArtifactRegistry,
    ArtifactTypeDefinition,
    AsyncMemoryDatabase,
    RubricRegistry,
    create_provenance,
)

__all__ = [
    "ArtifactRegistry",
    "ArtifactTypeDefinition",
    "AsyncMemoryDatabase",
    "RubricCriterion",
    "RubricExecutor",
    "RubricLevel",
    "RubricRegistry",
    "create_provenance",
]
