"""The rubric model: criteria, options, scoring methods and the rubric itself.

One model carries every seed format without loss: autorubric / ``rubric`` criteria
(requirement, weight, options), OpenRubricRL (name, semver version, domain, scale,
examples, subcriteria, hybrid metrics) and dataknobs (levels, scoring methods,
pass threshold). Loaders and writers for those formats live in ``_formats``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "CANONICAL_NA_OPTION",
    "AggregationName",
    "CalibrationExample",
    "Criterion",
    "CriterionOption",
    "CriterionVerdict",
    "HybridMetric",
    "Rubric",
    "Scale",
    "ScaleType",
    "ScoringMethod",
    "ScoringType",
]

ScaleType = Literal["ordinal", "nominal"]
AggregationName = Literal[
    "majority",
    "weighted",
    "unanimous",
    "any",
    "mean",
    "median",
    "weighted_mean",
    "mode",
    "min",
    "max",
    "weighted_mode",
]
DEFAULT_WEIGHT = 10.0
SEMVER = re.compile(r"^\d+\.\d+\.\d+$")
_STRICT = ConfigDict(extra="forbid", populate_by_name=True)


class CriterionVerdict(StrEnum):
    """The verdict on a binary criterion."""

    MET = "MET"
    UNMET = "UNMET"
    CANNOT_ASSESS = "CANNOT_ASSESS"


class ScoringType(StrEnum):
    """How a criterion is decided. ``llm`` is the default."""

    LLM = "llm"
    FUNCTION = "function"
    JSON_SCHEMA = "json_schema"
    METRIC = "metric"
    LLM_DECODE = "llm_decode"


class ScoringMethod(BaseModel):
    """How one criterion is decided, with what each method needs.

    ``function_ref`` names a function registered in code (``"myapp:check"``);
    a rubric file never imports it by itself. ``json_schema`` is an inline JSON
    Schema; ``decode_prompt`` a Jinja2 template rendered in a sandbox.
    """

    model_config = _STRICT

    type: ScoringType = ScoringType.LLM
    function_ref: str | None = None
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema")
    schema_ref: str | None = None
    decode_prompt: str | None = None
    decode_output_schema: dict[str, Any] | None = None
    metric: str | None = None
    config: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _needs(self) -> ScoringMethod:
        need = {
            ScoringType.FUNCTION: ("function_ref", self.function_ref),
            ScoringType.METRIC: ("metric", self.metric),
            ScoringType.LLM_DECODE: ("decode_prompt", self.decode_prompt),
        }.get(self.type)
        if need is not None and not need[1]:
            raise ValueError(f"scoring method {self.type.value!r} needs {need[0]!r}; add it")
        if self.type is ScoringType.JSON_SCHEMA and not (self.json_schema or self.schema_ref):
            raise ValueError("scoring method 'json_schema' needs 'schema' (inline) or 'schema_ref'")
        return self


class CriterionOption(BaseModel):
    """One option of a multi-choice criterion (a dataknobs level is an option).

    ``value`` is the credit in [0, 1]; ``na`` marks a "not applicable" option,
    which never counts towards the score.
    """

    model_config = _STRICT

    label: str
    value: float = 0.0
    na: bool = False
    id: str | None = None
    description: str | None = None
    indicators: list[str] = Field(default_factory=list)

    @field_validator("label")
    @classmethod
    def _label(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("option label is empty; give each option a short label")
        return v

    @field_validator("value")
    @classmethod
    def _value(cls, v: float) -> float:
        if not (math.isfinite(v) and 0.0 <= v <= 1.0):
            raise ValueError(f"option value {v!r} is outside [0, 1]; use a credit from 0 to 1")
        return v


CANONICAL_NA_OPTION = CriterionOption(label="N/A", value=0.0, na=True, id="na")


class CalibrationExample(BaseModel):
    """A scored example (OpenRubricRL ``examples``), shown to judges for calibration."""

    model_config = _STRICT

    input: str | None = None
    output: str
    score: float | None = None
    explanation: str | None = None


def _norm(label: str) -> str:
    return " ".join(label.split()).casefold()


class Criterion(BaseModel):
    """One weighted requirement.

    Binary when ``options`` is None (MET / UNMET / CANNOT_ASSESS), multi-choice
    otherwise. A negative ``weight`` is a penalty: MET means the fault is present.
    A criterion with ``subcriteria`` is scored as the weighted mean of its children.
    """

    model_config = _STRICT

    requirement: str = Field(alias="description")
    weight: float = DEFAULT_WEIGHT
    name: str | None = None
    id: str | None = None
    options: list[CriterionOption] | None = None
    scale_type: ScaleType | None = None
    aggregation: AggregationName | None = None
    examples: dict[str, list[CalibrationExample]] | None = None
    subcriteria: list[Criterion] | None = None
    section: str | None = None
    scoring_method: ScoringMethod | None = None
    required: bool = True
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("requirement")
    @classmethod
    def _requirement(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("requirement is empty; say what the submission must do")
        return v

    @field_validator("weight")
    @classmethod
    def _weight(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError(f"weight {v!r} is not a finite number")
        return v

    @model_validator(mode="after")
    def _shape(self) -> Criterion:
        if self.options is not None:
            if not any(not o.na for o in self.options):
                raise ValueError("options need at least one option that is not N/A")
            seen: set[str] = set()
            for o in self.options:
                key = _norm(o.label)
                if key in seen:
                    raise ValueError(f"option label {o.label!r} appears twice; labels must differ")
                seen.add(key)
            if self.scale_type is None:
                self.scale_type = "ordinal"
            if self.subcriteria:
                raise ValueError("a criterion has either options or subcriteria, not both")
        elif self.scale_type is not None:
            raise ValueError("scale_type applies only to criteria with options")
        if self.subcriteria is not None and not self.subcriteria:
            raise ValueError("subcriteria is empty; remove it or list the children")
        return self

    # -- identity --------------------------------------------------------------
    @property
    def key(self) -> str | None:
        """The id if set, else the name: how reports and verdict files refer to it."""
        return self.id or self.name

    @property
    def description(self) -> str:
        """The requirement under the name OpenRubricRL and dataknobs use."""
        return self.requirement

    @property
    def is_multi_choice(self) -> bool:
        """True when the criterion has options."""
        return self.options is not None

    @property
    def is_leaf(self) -> bool:
        """True when the criterion has no subcriteria (a judge decides it)."""
        return not self.subcriteria

    @property
    def method(self) -> ScoringType:
        """The scoring method's type (``llm`` when unset)."""
        return self.scoring_method.type if self.scoring_method else ScoringType.LLM

    # -- options ---------------------------------------------------------------
    def _opts(self) -> list[CriterionOption]:
        if self.options is None:
            raise ValueError(f"criterion {self.key or self.requirement[:40]!r} is binary")
        return self.options

    @property
    def na_option_index(self) -> int | None:
        """Index of the first N/A option, or None."""
        if self.options is None:
            return None
        return next((i for i, o in enumerate(self.options) if o.na), None)

    def get_option_value(self, index: int) -> float:
        """Score value of the option at ``index``."""
        opts = self._opts()
        if not 0 <= index < len(opts):
            raise ValueError(f"option index {index} out of range 0..{len(opts) - 1}")
        return opts[index].value

    def find_option_by_label(self, label: str) -> int:
        """Index of the option whose label (or id) matches, ignoring case and spacing."""
        opts = self._opts()
        want = _norm(str(label))
        for i, o in enumerate(opts):
            if _norm(o.label) == want:
                return i
        for i, o in enumerate(opts):
            if o.id is not None and _norm(o.id) == want:
                return i
        valid = ", ".join(repr(o.label) for o in opts)
        raise ValueError(f"no option {label!r}; valid options are {valid}")

    def worst_option_among(self, candidate_indices: list[int]) -> int:
        """The score-minimising option among the candidates, aware of the weight's sign.

        Lowest value for a non-negative weight, highest for a negative one; value
        ties go to the lowest index.
        """
        opts = self._opts()
        if not candidate_indices:
            raise ValueError("no candidate options")
        sign = -1.0 if self.weight < 0 else 1.0
        return min(sorted(set(candidate_indices)), key=lambda i: sign * opts[i].value)

    def worst_scored_option(self) -> tuple[int, CriterionOption]:
        """(index, option) of the score-minimising option that is not N/A."""
        opts = self._opts()
        idx = self.worst_option_among([i for i, o in enumerate(opts) if not o.na])
        return idx, opts[idx]

    def with_guaranteed_na_option(self) -> Criterion:
        """This criterion, or a copy with an N/A option appended when it has none."""
        opts = self._opts()
        if any(o.na for o in opts):
            return self
        return self.model_copy(update={"options": [*opts, CANONICAL_NA_OPTION]})

    # -- trees -----------------------------------------------------------------
    def leaves(self) -> Iterator[Criterion]:
        """The leaf criteria under (and including) this one, depth first."""
        if self.is_leaf:
            yield self
        else:
            for child in self.subcriteria or []:
                yield from child.leaves()


Criterion.model_rebuild()


class Scale(BaseModel):
    """The range a rubric's score maps onto (OpenRubricRL ``scale``)."""

    model_config = _STRICT

    min: float = 0.0
    max: float = 1.0
    type: Literal["continuous", "discrete"] = "continuous"

    @model_validator(mode="after")
    def _order(self) -> Scale:
        if not (math.isfinite(self.min) and math.isfinite(self.max)) or self.max <= self.min:
            raise ValueError(f"scale max ({self.max!r}) must be greater than min ({self.min!r})")
        return self

    def map(self, unit_score: float) -> float:
        """Map a score in [0, 1] onto this scale; rounded when the scale is discrete."""
        value = self.min + unit_score * (self.max - self.min)
        # round-half-up, not banker's rounding: 2.5 on a 1..5 scale is a 3
        return float(math.floor(value + 0.5)) if self.type == "discrete" else value


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
    ) -> float:
        """Score verdicts without a judge (autorubric's ``compute_score``).

        ``verdicts`` is a list in leaf-criterion order or a mapping keyed by leaf
        name/id; values are MET / UNMET / CANNOT_ASSESS, option labels, true/false or 1/0.
        """
        from ._scoring import CannotAssessStrategy, ScoringPolicy, reports_from_verdicts
        from ._scoring import score_reports as _score

        policy = ScoringPolicy(
            CannotAssessStrategy(cannot_assess_strategy), partial_credit, normalize
        )
        reports = reports_from_verdicts(self, verdicts)
        return _score(reports, policy, all_negative=self.is_all_negative).score

    # -- grading (see rubricate._graders) ----------------------------------------
    async def grade(
        self,
        to_grade: Any = None,
        grader: Any = None,
        query: str | None = None,
        reference_submission: str | None = None,
        *,
        autograder: Any = None,
        item_id: str | None = None,
        examples: Any = None,
    ) -> Any:
        """Grade ``to_grade`` (text or ``{"thinking", "output"}``) with ``grader``.

        ``autograder=`` is accepted as the ``rubric`` package names it. Returns an
        :class:`~rubricate.EvaluationReport`.

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
                "grader=rubricate.CriterionGrader(judge='openai/gpt-4.1-mini') or judge='local'"
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
        grader: Any = None,
        query: str | None = None,
        reference_submission: str | None = None,
        *,
        autograder: Any = None,
        item_id: str | None = None,
        examples: Any = None,
    ) -> Any:
        """Blocking :meth:`grade` (works inside a running event loop too)."""
        from ._graders._base import run_sync

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

    # -- loading and writing (see rubricate._formats) ---------------------------
    @classmethod
    def from_dict(cls, data: Any, *, format: str = "auto", source: str | None = None) -> Rubric:
        """Build a rubric from parsed data in any supported format (detected by default)."""
        from ._formats import load_data

        return load_data(data, format=format, source=source)

    @classmethod
    def from_yaml(cls, text: str, *, format: str = "auto") -> Rubric:
        """Parse a rubric from YAML text."""
        from ._formats import load_text

        return load_text(text, kind="yaml", format=format)

    @classmethod
    def from_json(cls, text: str, *, format: str = "auto") -> Rubric:
        """Parse a rubric from JSON text."""
        from ._formats import load_text

        return load_text(text, kind="json", format=format)

    @classmethod
    def from_file(cls, source: Any, *, format: str = "auto") -> Rubric:
        """Load a rubric from a path or a file object (JSON or YAML, detected)."""
        from ._formats import load_file

        return load_file(source, format=format)

    def to_dict(self, *, format: str = "native") -> dict[str, Any]:
        """This rubric as plain data in the native format (or another, if it can express it)."""
        from ._formats import dump_data

        return dump_data(self, format=format)

    def to_yaml(self, *, format: str = "native") -> str:
        """This rubric as YAML text."""
        from ._formats import dump_text

        return dump_text(self, kind="yaml", format=format)

    def to_json(self, *, format: str = "native", indent: int | None = 2) -> str:
        """This rubric as JSON text."""
        from ._formats import dump_text

        return dump_text(self, kind="json", format=format, indent=indent)

    def to_file(self, path: Any, *, format: str = "native") -> None:
        """Write this rubric to ``path``; ``.json`` writes JSON, anything else YAML."""
        from ._formats import dump_file

        dump_file(self, path, format=format)
