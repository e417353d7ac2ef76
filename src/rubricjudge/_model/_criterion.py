"""Criteria: verdicts, options, calibration examples, scoring methods and the criterion.

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

from ._media_check import MediaCheck, media_problem
from ._trajectory_check import Scope, TrajectoryCheck, TurnAggregation, check_problem

__all__ = [
    "CANONICAL_NA_OPTION",
    "DEFAULT_WEIGHT",
    "SEMVER",
    "STRICT",
    "AggregationName",
    "CalibrationExample",
    "Criterion",
    "CriterionOption",
    "CriterionVerdict",
    "Gate",
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
STRICT = ConfigDict(extra="forbid", populate_by_name=True)


class CriterionVerdict(StrEnum):
    """The verdict on a binary criterion."""

    MET = "MET"
    UNMET = "UNMET"
    CANNOT_ASSESS = "CANNOT_ASSESS"


class ScoringType(StrEnum):
    """How a criterion is decided. ``llm`` is the default.

    ``DETERMINISTIC`` and ``SCHEMA`` are dataknobs' names for ``FUNCTION`` and
    ``JSON_SCHEMA`` (aliases: the same members, not listed when iterating).
    """

    LLM = "llm"
    FUNCTION = "function"
    JSON_SCHEMA = "json_schema"
    METRIC = "metric"
    LLM_DECODE = "llm_decode"
    TRAJECTORY = "trajectory"
    MEDIA = "media"
    DETERMINISTIC = "function"
    SCHEMA = "json_schema"


class ScoringMethod(BaseModel):
    """How one criterion is decided, with what each method needs.

    ``function_ref`` names a function registered in code (``"myapp:check"``);
    a rubric file never imports it by itself. ``json_schema`` is an inline JSON
    Schema; ``decode_prompt`` a Jinja2 template rendered in a sandbox;
    ``trajectory`` an exact check on a conversation's tool calls; ``media`` an
    exact check on the submission's images or documents.
    """

    model_config = STRICT

    type: ScoringType = ScoringType.LLM
    function_ref: str | None = None
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema")
    schema_ref: str | None = None
    decode_prompt: str | None = None
    decode_output_schema: dict[str, Any] | None = None
    metric: str | None = None
    trajectory: TrajectoryCheck | None = None
    media: MediaCheck | None = None
    config: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _needs(self) -> ScoringMethod:
        need = {
            ScoringType.FUNCTION: ("function_ref", self.function_ref),
            ScoringType.METRIC: ("metric", self.metric),
            ScoringType.LLM_DECODE: ("decode_prompt", self.decode_prompt),
            ScoringType.TRAJECTORY: ("trajectory", self.trajectory),
            ScoringType.MEDIA: ("media", self.media),
        }.get(self.type)
        if need is not None and not need[1]:
            raise ValueError(f"scoring method {self.type.value!r} needs {need[0]!r}; add it")
        if self.type is ScoringType.JSON_SCHEMA and not (self.json_schema or self.schema_ref):
            raise ValueError("scoring method 'json_schema' needs 'schema' (inline) or 'schema_ref'")
        if self.trajectory is not None and self.type is not ScoringType.TRAJECTORY:
            raise ValueError("'trajectory' belongs to scoring method type 'trajectory'; set it")
        if self.media is not None and self.type is not ScoringType.MEDIA:
            raise ValueError("'media' belongs to scoring method type 'media'; set it")
        return self


class Scale(BaseModel):
    """The range a rubric's score maps onto (OpenRubricRL ``scale``)."""

    model_config = STRICT

    min: float = 0.0
    max: float = 1.0
    type: Literal["continuous", "discrete"] = "continuous"

    @model_validator(mode="after")
    def _order(self) -> Scale:
        if not (math.isfinite(self.min) and math.isfinite(self.max)) or self.max <= self.min:
            raise ValueError(f"scale max ({self.max!r}) must be greater than min ({self.min!r})")
        return self

    def problem(self, value: float) -> str | None:
        """Why ``value`` is not a score on this scale, or None when it is one."""
        if not (math.isfinite(value) and self.min <= value <= self.max):
            return f"{value!r} is outside the scale {self.min:g} to {self.max:g}"
        if self.type == "discrete" and not float(value).is_integer():
            return (
                f"{value!r} is not a whole number, and the scale {self.min:g} to "
                f"{self.max:g} is discrete"
            )
        return None

    def unit(self, value: float) -> float:
        """The place of ``value`` (a score on this scale) as a credit in [0, 1]."""
        return (value - self.min) / (self.max - self.min)

    def position(self, unit_score: float) -> float:
        """Map a score in [0, 1] onto this scale, never rounded.

        This is OpenRubricRL's ``overall_score`` (the weighted average of the
        criteria's scores on the scale), from which its reward is computed.
        """
        return self.min + unit_score * (self.max - self.min)

    def map(self, unit_score: float) -> float:
        """Map a score in [0, 1] onto this scale for display; rounded when discrete."""
        value = self.position(unit_score)
        # round-half-up, not banker's rounding: 2.5 on a 1..5 scale is a 3
        return float(math.floor(value + 0.5)) if self.type == "discrete" else value


class CriterionOption(BaseModel):
    """One option of a multi-choice criterion (a dataknobs level is an option).

    ``value`` is the credit in [0, 1]; ``na`` marks a "not applicable" option,
    which never counts towards the score.
    """

    model_config = STRICT

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

    @property
    def score(self) -> float:
        """The option's credit under dataknobs' name for a level's (``value``)."""
        return self.value


CANONICAL_NA_OPTION = CriterionOption(label="N/A", value=0.0, na=True, id="na")


class Gate(BaseModel):
    """What a gate criterion does to the score when it is UNMET.

    ``cap`` is the highest score (normalised, in [0, 1]) a submission can get while
    the gate is UNMET: 0.0 (the default) means nothing else counts. ``gate: true``
    in a rubric file is ``gate: {cap: 0.0}``.
    """

    model_config = STRICT

    cap: float = 0.0

    @field_validator("cap")
    @classmethod
    def _cap(cls, v: float) -> float:
        if not (math.isfinite(v) and 0.0 <= v < 1.0):
            raise ValueError(
                f"gate cap {v!r} is outside [0, 1); give the highest score (0 = nothing counts) "
                "a submission can get while the gate is UNMET"
            )
        return v


class CalibrationExample(BaseModel):
    """A scored example (OpenRubricRL ``examples``), shown to judges for calibration."""

    model_config = STRICT

    input: str | None = None
    output: str
    score: float | None = None
    explanation: str | None = None


def _norm(label: str) -> str:
    return " ".join(label.split()).casefold()


class Criterion(BaseModel):
    """One weighted requirement.

    Binary when ``options`` and ``scale`` are None (MET / UNMET / CANNOT_ASSESS),
    multi-choice with ``options``, scored on a scale with ``scale`` (a number from
    ``scale.min`` to ``scale.max``, as OpenRubricRL scores every criterion; its credit
    is the number's place on the scale). A negative ``weight`` is a penalty: MET (or
    the top of the scale) means the fault is present.
    A criterion with ``subcriteria`` is scored as the weighted mean of its children.
    ``scope`` says which part of a conversation a judge decides it on (see
    ``_trajectory_check``); ``turn_aggregation`` combines the verdicts of every assistant
    turn (``all`` by default, ``any`` on a penalty).
    """

    model_config = STRICT

    requirement: str = Field(alias="description")
    weight: float = DEFAULT_WEIGHT
    name: str | None = None
    id: str | None = None
    options: list[CriterionOption] | None = None
    scale: Scale | None = None
    scale_type: ScaleType | None = None
    aggregation: AggregationName | None = None
    examples: dict[str, list[CalibrationExample]] | None = None
    subcriteria: list[Criterion] | None = None
    section: str | None = None
    scoring_method: ScoringMethod | None = None
    scope: Scope | None = None
    turn_aggregation: TurnAggregation | None = None
    required: bool = True
    gate: Gate | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("gate", mode="before")
    @classmethod
    def _gate_shorthand(cls, v: Any) -> Any:
        # ``gate: true`` is a gate that zeroes the score; ``gate: false`` is no gate
        if v is True:
            return Gate()
        if v is False:
            return None
        return v

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
        if self.scale is not None and (self.options is not None or self.subcriteria):
            raise ValueError(
                "a criterion scored on a scale has no options or subcriteria; remove 'scale' "
                "or them"
            )
        if self.subcriteria is not None and not self.subcriteria:
            raise ValueError("subcriteria is empty; remove it or list the children")
        self._check_trajectory()
        self._check_gate()
        return self

    def _check_gate(self) -> None:
        if self.gate is None:
            return
        if not (self.is_binary and self.is_leaf):
            raise ValueError(
                "a gate is decided MET or UNMET: remove 'options' / 'scale' / 'subcriteria' "
                "from this criterion, or remove 'gate'"
            )
        if self.weight < 0:
            raise ValueError(
                f"a gate closes when it is UNMET, but this criterion is a penalty (weight "
                f"{self.weight:g}): MET means the fault is present, so UNMET is the good "
                "outcome. Write the gate as a positive criterion (e.g. 'free of <the fault>', "
                "weight 0 or more) or remove 'gate'"
            )

    @property
    def levels(self) -> list[CriterionOption]:
        """The options under dataknobs' name (empty for a binary criterion)."""
        return list(self.options or [])

    def validate_options(self) -> Criterion:
        """Check the options as autorubric does; returns the criterion (autorubric's name).

        autorubric refuses a multi-choice criterion with fewer than 2 options, or fewer
        than 2 that are not N/A; rubricjudge builds one with a single scored option
        (dataknobs and OpenRubricRL files have them), so the check is this method.

        Raises:
            ValueError: fewer than 2 options, or fewer than 2 that are not N/A.
        """
        if self.options is not None:
            if len(self.options) < 2:
                raise ValueError(
                    f"criterion {self.key or self.requirement!r}: a multi-choice criterion "
                    "needs at least 2 options"
                )
            if sum(not o.na for o in self.options) < 2:
                raise ValueError(
                    f"criterion {self.key or self.requirement!r}: it needs at least 2 options "
                    "that are not N/A"
                )
        return self

    def _check_trajectory(self) -> None:
        sm = self.scoring_method
        problem = check_problem(sm.trajectory) if sm and sm.trajectory else None
        if problem is not None:
            name = f" of criterion {self.key!r}" if self.key else ""
            raise ValueError(f"scoring_method.trajectory{name}: {problem}")
        if self.turn_aggregation is not None and self.scope != "every_assistant_turn":
            raise ValueError(
                "turn_aggregation applies only with scope: every_assistant_turn; remove it or "
                "set that scope"
            )
        if self.scope is not None and self.subcriteria:
            raise ValueError("scope applies to leaf criteria; set it on the subcriteria")
        if self.scope is not None and self.method is not ScoringType.LLM:
            raise ValueError(
                f"scope applies to criteria a judge decides, not to scoring method "
                f"{self.method.value!r}; remove it"
            )
        media = sm.media if sm else None
        problem = media_problem(media) if media is not None else None
        if problem is not None:
            name = f" of criterion {self.key!r}" if self.key else ""
            raise ValueError(f"scoring_method.media{name}: {problem}")
        if self.method is ScoringType.MEDIA and not self.is_binary:
            raise ValueError(
                "a media check decides MET or UNMET: remove 'options' / 'scale' / "
                "'subcriteria' from this criterion"
            )
        if self.method is ScoringType.TRAJECTORY and not self.is_binary:
            raise ValueError(
                "a trajectory check decides MET or UNMET: remove 'options' / 'scale' / "
                "'subcriteria' from this criterion"
            )

    @property
    def turns_aggregation(self) -> TurnAggregation:
        """How every-turn verdicts combine: ``turn_aggregation``, else all (any on a penalty)."""
        if self.turn_aggregation is not None:
            return self.turn_aggregation
        return "any" if self.weight < 0 else "all"

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
    def is_scored_on_scale(self) -> bool:
        """True when the criterion's verdict is a number on its ``scale``."""
        return self.scale is not None

    @property
    def is_binary(self) -> bool:
        """True when the criterion's verdict is MET / UNMET / CANNOT_ASSESS."""
        return self.options is None and self.scale is None

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
