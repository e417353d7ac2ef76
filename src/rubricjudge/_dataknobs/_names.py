"""dataknobs' rubric names that do not clash with ours: levels, criteria, the executor.

``RubricLevel`` is an option whose value may be given as ``score``;
``RubricCriterion`` a criterion whose options may be given as ``levels``;
``RubricExecutor`` runs :func:`rubricjudge.evaluate_rubric` behind dataknobs'
constructor and ``evaluate`` signature. They build ordinary rubricjudge objects, so
everything downstream (registry, review flow, reports) is unchanged. Names that
do clash (dataknobs' async ``RubricRegistry``) live in :mod:`rubricjudge.dataknobs`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import model_validator

from .._graders._mixed import FeedbackMode, evaluate_rubric
from .._methods._functions import FunctionRegistry
from .._methods._run import coerce_policy
from .._model._criterion import Criterion, CriterionOption
from .._model._reports import EvaluationReport
from .._model._rubric import Rubric
from .._model._scoring import ScoringPolicy

__all__ = ["RubricCriterion", "RubricExecutor", "RubricLevel"]


def _renamed(data: Any, theirs: str, ours: str, what: str) -> Any:
    if not isinstance(data, Mapping) or theirs not in data:
        return data
    if ours in data:
        raise ValueError(f"{what} got both {theirs!r} and {ours!r}; give one ({ours!r})")
    out = dict(data)
    out[ours] = out.pop(theirs)
    return out


class RubricLevel(CriterionOption):
    """A dataknobs level: an option (``id``, ``label``, ``description``) with a ``score``.

    ``score`` is the option's ``value`` under dataknobs' name, in [0, 1].
    """

    @model_validator(mode="before")
    @classmethod
    def _score_is_value(cls, data: Any) -> Any:
        return _renamed(data, "score", "value", "RubricLevel")


class RubricCriterion(Criterion):
    """A dataknobs criterion: ``id``, ``name``, ``description``, ``weight``, ``levels``.

    ``levels`` are the criterion's options under dataknobs' name.
    """

    @model_validator(mode="before")
    @classmethod
    def _levels_are_options(cls, data: Any) -> Any:
        return _renamed(data, "levels", "options", "RubricCriterion")


class RubricExecutor:
    """dataknobs' executor over :func:`rubricjudge.evaluate_rubric`.

    Args:
        function_registry: where ``function_ref`` / ``schema_ref`` are looked up.
        llm: a judge (spec, Judge or ``generate_fn``) for ``llm`` and ``llm_decode``
            criteria; with one, the feedback summary is written by it (falling back
            to the template when it fails), as dataknobs does.
        policy: rubricjudge's scoring rules by default; ``"dataknobs"`` (or
            ``ScoringPolicy.dataknobs()``) reproduces dataknobs' numbers exactly.
    """

    def __init__(
        self,
        function_registry: FunctionRegistry | Mapping[str, Callable[[Any], Any]] | None = None,
        llm: Any = None,
        *,
        policy: ScoringPolicy | str | None = None,
    ) -> None:
        self.function_registry = FunctionRegistry.coerce(function_registry)
        self.llm = llm
        self.policy = coerce_policy(policy)

    @property
    def feedback(self) -> FeedbackMode:
        """How the evaluations' feedback summary is written."""
        return "llm" if self.llm is not None else "deterministic"

    async def evaluate(
        self, rubric: Rubric, target: Any, target_id: str = "", target_type: str = ""
    ) -> EvaluationReport:
        """Evaluate ``target`` against ``rubric``; the report's ``weighted_score`` is its score.

        ``target_id`` becomes the report's ``id``. dataknobs' evaluation fields are
        kept in ``metadata`` and read as attributes: ``rubric_id``,
        ``rubric_version``, ``target_id``, ``target_type`` (the rubric's when not
        given), ``evaluated_at`` (now, ISO 8601 UTC) and ``evaluated_by`` (the
        judge's name, else ``rubricjudge``).
        """
        report = await evaluate_rubric(
            rubric,
            target,
            judge=self.llm,
            functions=self.function_registry,
            feedback=self.feedback,
            policy=self.policy,
        )
        kind = target_type or rubric.target_type or ""
        by = self.llm if isinstance(self.llm, str) else getattr(self.llm, "name", None)
        meta = {
            **report.metadata,
            "rubric_id": rubric.id,
            "rubric_version": rubric.version,
            "target_id": target_id,
            "target_type": kind,
            "evaluated_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "evaluated_by": by or "rubricjudge",
        }
        return report.model_copy(update={"id": target_id or report.id, "metadata": meta})
