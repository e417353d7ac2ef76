"""The criterion: one weighted requirement, with its parts (``_criterion_parts``, re-exported here).

One model carries every seed format without loss: autorubric / ``rubric`` criteria
(requirement, weight, options), OpenRubricRL (name, semver version, domain, scale,
examples, subcriteria, hybrid metrics) and dataknobs (levels, scoring methods,
pass threshold). Loaders and writers for those formats live in ``_formats``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator

from ._criterion_parts import (
    CANONICAL_NA_OPTION,
    DEFAULT_WEIGHT,
    SEMVER,
    STRICT,
    AggregationName,
    CalibrationExample,
    CriterionOption,
    CriterionVerdict,
    Gate,
    Scale,
    ScaleType,
    ScoringMethod,
    ScoringType,
)
from ._media_check import media_problem
from ._trajectory_check import Scope, TurnAggregation, check_problem

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
