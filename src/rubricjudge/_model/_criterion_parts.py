"""The parts a criterion is built of: verdicts, scoring methods, scale, options, gates, examples.

Each is a value a rubric file writes inside a criterion (or, for :class:`Scale`, at the
rubric's top); :class:`~rubricjudge._model._criterion.Criterion` puts them together.
``STRICT`` is the pydantic configuration every rubric-file model shares.
"""

from __future__ import annotations

import math
import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ._media_check import MediaCheck
from ._trajectory_check import TrajectoryCheck

__all__ = [
    "CANONICAL_NA_OPTION",
    "DEFAULT_WEIGHT",
    "SEMVER",
    "STRICT",
    "AggregationName",
    "CalibrationExample",
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
