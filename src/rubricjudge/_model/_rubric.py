"""The rubric model: a rubric of criteria (see ``_criterion``), its scale and metadata.

One model carries every seed format without loss: autorubric / ``rubric`` criteria
(requirement, weight, options), OpenRubricRL (name, semver version, domain, scale,
examples, subcriteria, hybrid metrics) and dataknobs (levels, scoring methods,
pass threshold). Loaders and writers for those formats live in ``_formats``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, Field, ValidationInfo, field_validator, model_validator

from .._errors import ConfigError, UsageError
from ._criterion import (
    CANONICAL_NA_OPTION,
    SEMVER,
    AggregationName,
    CalibrationExample,
    Criterion,
    CriterionOption,
    CriterionVerdict,
    Gate,
    Scale,
    ScaleType,
    ScoringMethod,
    ScoringType,
)
from ._criterion import STRICT as _STRICT
from ._relations import Implication, Relation, check_relations

if TYPE_CHECKING:
    from ._seams import AsyncGrader

_ReportT = TypeVar("_ReportT")

__all__ = [
    "CANONICAL_NA_OPTION",
    "AggregationName",
    "CalibrationExample",
    "Criterion",
    "CriterionOption",
    "CriterionVerdict",
    "Gate",
    "HybridMetric",
    "Implication",
    "Relation",
    "Rubric",
    "Scale",
    "ScaleType",
    "ScoringMethod",
    "ScoringType",
]


class HybridMetric(BaseModel):
    """An automated metric combined with the judge's score (OpenRubricRL)."""

    model_config = _STRICT

    name: str
    type: str
    weight: float
    config: dict[str, Any] = Field(default_factory=dict)


class Rubric(BaseModel):
    """A list of weighted criteria and what describes them.

    ``Rubric([Criterion(...), ...])`` works as in autorubric; every other field
    is optional. ``rubric.rubric`` is the criteria list under autorubric's name.
    """

    model_config = _STRICT

    criteria: list[Criterion]
    id: str | None = None
    name: str | None = None
    description: str | None = None
    version: str | None = None
    domain: str | None = None
    target_type: str | None = None
    scale: Scale | None = None
    pass_threshold: float | None = None
    guidelines: str | None = None
    hybrid_metrics: list[HybridMetric] | None = None
    relations: list[Relation] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    def __init__(self, criteria: list[Criterion] | None = None, /, **data: Any) -> None:
        if criteria is not None:
            data["criteria"] = criteria
        super().__init__(**data)

    @field_validator("criteria")
    @classmethod
    def _nonempty(cls, v: list[Criterion]) -> list[Criterion]:
        if not v:
            raise ValueError("a rubric needs at least one criterion")
        return v

    @field_validator("version")
    @classmethod
    def _semver(cls, v: str | None) -> str | None:
        if v is not None and not SEMVER.match(v):
            raise ValueError(f"version {v!r} is not semver; write it as MAJOR.MINOR.PATCH")
        return v

    @field_validator("pass_threshold")
    @classmethod
    def _threshold(cls, v: float | None) -> float | None:
        if v is not None and not (math.isfinite(v) and 0.0 <= v <= 1.0):
            raise ValueError(f"pass_threshold {v!r} is outside [0, 1]")
        return v

    @model_validator(mode="after")
    def _unique_keys(self) -> Rubric:
        seen: set[str] = set()
        for c in self.iter_all():
            if c.key is not None:
                if c.key in seen:
                    raise ValueError(f"criterion name/id {c.key!r} is used twice; make it unique")
                seen.add(c.key)
        return self

    @field_validator("relations")
    @classmethod
    def _relations(cls, v: list[Relation] | None, info: ValidationInfo) -> list[Relation] | None:
        criteria = info.data.get("criteria")
        if v and criteria:  # criteria that failed validation are reported on their own
            check_relations(criteria, v)
        return v

    @property
    def rubric(self) -> list[Criterion]:
        """The criteria (autorubric's attribute name)."""
        return self.criteria

    def __len__(self) -> int:
        return len(self.criteria)

    def iter_all(self) -> Iterator[Criterion]:
        """Every criterion in the tree, parents before children."""

        def walk(cs: list[Criterion]) -> Iterator[Criterion]:
            for c in cs:
                yield c
                yield from walk(c.subcriteria or [])

        return walk(self.criteria)

    def leaves(self) -> list[Criterion]:
        """Every leaf criterion, in order."""
        return [leaf for c in self.criteria for leaf in c.leaves()]

    @property
    def is_hierarchical(self) -> bool:
        """True when any criterion has subcriteria."""
        return any(not c.is_leaf for c in self.criteria)

    @property
    def total_positive_weight(self) -> float:
        """Sum of the positive top-level weights."""
        return sum(c.weight for c in self.criteria if c.weight > 0)

    @property
    def is_all_negative(self) -> bool:
        """True when every top-level weight is negative (an error-detection rubric)."""
        return all(c.weight < 0 for c in self.criteria)

    @property
    def sections(self) -> list[str]:
        """Section names in order of first appearance."""
        out: list[str] = []
        for c in self.criteria:
            if c.section is not None and c.section not in out:
                out.append(c.section)
        return out

    # -- scoring ---------------------------------------------------------------
    def compute_score(
        self,
        verdicts: Any,
        normalize: bool = True,
        cannot_assess_strategy: Any = "skip",
        partial_credit: float = 0.5,
    ) -> float | None:
        """Score verdicts without a judge (autorubric's ``compute_score``).

        ``verdicts`` is a list in leaf-criterion order or a mapping keyed by leaf
        name/id; values are MET / UNMET / CANNOT_ASSESS, option labels, true/false or 1/0.
        Returns None when no criterion with a non-zero weight counted (everything was
        skipped as CANNOT_ASSESS or N/A), as autorubric does.
        """
        from ._scoring import CannotAssessStrategy, ScoringPolicy, reports_from_verdicts
        from ._scoring import score_reports as _score

        policy = ScoringPolicy(
            CannotAssessStrategy(cannot_assess_strategy), partial_credit, normalize
        )
        reports = reports_from_verdicts(self, verdicts)
        return _score(reports, policy, all_negative=self.is_all_negative).score

    # -- grading (see rubricjudge._graders) ----------------------------------------
    async def grade(
        self,
        to_grade: Any = None,
        grader: AsyncGrader[Rubric, _ReportT] | None = None,
        query: str | None = None,
        reference_submission: str | None = None,
        *,
        autograder: AsyncGrader[Rubric, _ReportT] | None = None,
        item_id: str | None = None,
        examples: Any = None,
    ) -> _ReportT:
        """Grade ``to_grade`` (text or ``{"thinking", "output"}``) with ``grader``.

        ``autograder=`` is accepted as the ``rubric`` package names it. Returns an
        :class:`~rubricjudge.EvaluationReport`.

        Raises:
            TypeError: no grader was given (as in autorubric); pass e.g.
                ``grader=CriterionGrader(judge="local")``.
        """
        if grader is not None and autograder is not None:
            raise TypeError("give grader= or autograder=, not both")
        g = grader if grader is not None else autograder
        if g is None:
            raise TypeError(
                "Rubric.grade() needs a grader, e.g. "
                "grader=rubricjudge.CriterionGrader(judge='openai/gpt-4.1-mini') or judge='local'"
            )
        if to_grade is None:
            raise TypeError("Rubric.grade() needs to_grade: the text (or thinking/output) to grade")
        return await g.grade(
            self,
            to_grade,
            query=query,
            reference_submission=reference_submission,
            item_id=item_id,
            examples=examples,
        )

    def grade_sync(
        self,
        to_grade: Any = None,
        grader: AsyncGrader[Rubric, _ReportT] | None = None,
        query: str | None = None,
        reference_submission: str | None = None,
        *,
        autograder: AsyncGrader[Rubric, _ReportT] | None = None,
        item_id: str | None = None,
        examples: Any = None,
    ) -> _ReportT:
        """Blocking :meth:`grade` (works inside a running event loop too)."""
        from .._aio import run_sync

        return run_sync(
            self.grade(
                to_grade,
                grader,
                query,
                reference_submission,
                autograder=autograder,
                item_id=item_id,
                examples=examples,
            )
        )

    # -- loading and writing (see rubricjudge._formats) ---------------------------
    @classmethod
    def from_dict(cls, data: Any, *, format: str = "auto", source: str | None = None) -> Rubric:
        """Build a rubric from parsed data in any supported format (detected by default)."""
        from .._formats._load import load_data

        return load_data(data, format=format, source=source)

    @classmethod
    def from_yaml(cls, text: str, *, format: str = "auto") -> Rubric:
        """Parse a rubric from YAML text."""
        from .._formats._load import load_text

        return load_text(text, kind="yaml", format=format)

    @classmethod
    def from_json(cls, text: str, *, format: str = "auto") -> Rubric:
        """Parse a rubric from JSON text."""
        from .._formats._load import load_text

        return load_text(text, kind="json", format=format)

    @classmethod
    def from_file(cls, source: Any, *, format: str = "auto") -> Rubric:
        """Load a rubric from a path or a file object (JSON or YAML, detected)."""
        from .._formats._load import load_file

        return load_file(source, format=format)

    def to_dict(self, *, format: str = "native") -> dict[str, Any]:
        """This rubric as plain data in the native format (or another, if it can express it)."""
        from .._formats._dump import dump_data

        return dump_data(self, format=format)

    def to_yaml(self, *, format: str = "native") -> str:
        """This rubric as YAML text."""
        from .._formats._dump import dump_text

        return dump_text(self, kind="yaml", format=format)

    def to_json(self, *, format: str = "native", indent: int | None = 2) -> str:
        """This rubric as JSON text."""
        from .._formats._dump import dump_text

        return dump_text(self, kind="json", format=format, indent=indent)

    def validate_schema(self, schema_path: Any = None) -> bool:
        """Whether this rubric is a valid OpenRubricRL rubric (OpenRubricRL's ``validate_schema``).

        Without ``schema_path`` the rubric is converted to OpenRubricRL's format and
        checked with OpenRubricRL's rules (name, semver version, scale, weights that
        sum to 1...); with it, the converted data is checked against that JSON Schema
        file. False, never an exception, when it is not (``rubricjudge validate`` and
        :func:`~rubricjudge.validate_data` say why).

        Raises:
            ConfigError: ``schema_path`` cannot be read as a JSON Schema.
        """
        from .._formats._dump import convert_rubric
        from .._formats._load import validate_data

        try:
            data, _ = convert_rubric(self, to="openrubricrl")
        except UsageError:  # something OpenRubricRL cannot express
            return False
        if schema_path is None:
            return not validate_data(data, format="openrubricrl")
        return _matches_schema(data, schema_path)

    def to_file(self, path: Any, *, format: str = "native") -> None:
        """Write this rubric to ``path``; ``.json`` writes JSON, anything else YAML."""
        from .._formats._dump import dump_file

        dump_file(self, path, format=format)


def _matches_schema(data: Any, schema_path: Any) -> bool:
    import jsonschema_rs

    from .._limits import json_loads, read_text

    try:
        schema = json_loads(read_text(schema_path))
        validator = jsonschema_rs.validator_for(schema)
    except Exception as e:  # unreadable, not JSON, or not a schema
        raise ConfigError(f"schema {str(schema_path)!r} is not a readable JSON Schema: {e}") from e
    return bool(validator.is_valid(data))
