"""dataknobs' rubric API under its own names, for code written against dataknobs-bots.

Code written for ``dataknobs_bots.rubrics`` / ``dataknobs_bots.artifacts`` runs
with its imports pointed here::

    from rubricjudge.dataknobs import (
        ArtifactRegistry, ArtifactTypeDefinition, AsyncMemoryDatabase, FunctionRegistry,
        Rubric, RubricCriterion, RubricExecutor, RubricLevel, RubricRegistry,
        ScoringMethod, ScoringType, create_provenance,
    )

The objects are rubricjudge's: a ``RubricCriterion`` is a :class:`rubricjudge.Criterion`
(its ``levels`` are options, a level's ``score`` is an option's ``value``), an
evaluation is an :class:`rubricjudge.EvaluationReport` (``weighted_score`` is its
score). Names that do not clash with rubricjudge's are also exported by
``rubricjudge`` itself; ``RubricRegistry`` here is dataknobs' async one, not
:class:`rubricjudge.RubricRegistry`.

Scoring follows rubricjudge's rules unless the executor is given
``policy="dataknobs"``, which reproduces dataknobs' numbers exactly (a failing
scoring function scores 0; see :class:`rubricjudge.ScoringPolicy`).
"""

from __future__ import annotations

from ._dataknobs._names import RubricCriterion, RubricExecutor, RubricLevel
from ._dataknobs._review import (
    ArtifactRegistry,
    ArtifactTypeDefinition,
    AsyncMemoryDatabase,
    RubricRegistry,
    create_provenance,
)
from ._lint._meta import build_meta_rubric
from ._methods._feedback import (
    generate_criterion_feedback,
    generate_deterministic_summary,
    generate_feedback_summary,
)
from ._methods._functions import FunctionRegistry
from ._model._reports import CriterionReport as CriterionResult
from ._model._reports import EvaluationReport as RubricEvaluation
from ._model._rubric import Rubric, ScoringMethod, ScoringType

__all__ = [
    "ArtifactRegistry",
    "ArtifactTypeDefinition",
    "AsyncMemoryDatabase",
    "CriterionResult",
    "FunctionRegistry",
    "Rubric",
    "RubricCriterion",
    "RubricEvaluation",
    "RubricExecutor",
    "RubricLevel",
    "RubricRegistry",
    "ScoringMethod",
    "ScoringType",
    "build_meta_rubric",
    "create_provenance",
    "generate_criterion_feedback",
    "generate_deterministic_summary",
    "generate_feedback_summary",
]
