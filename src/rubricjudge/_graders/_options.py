"""The graders' closed choices: one ``Literal`` type per option, its values, one check.

Each choice is written once here; the graders type their keywords with it, the
CLI lists its values from here, and :func:`check_choice` turns a value outside
it into a :class:`ConfigError` that lists the valid ones. ``over_budget``'s choice
(:data:`OverBudget`) belongs to the conversation renderer and is reused as is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeVar, get_args

from .._conversations._render_prompt import OVER_BUDGET_POLICIES, OverBudget
from .._errors import ConfigError

__all__ = [
    "BINARY_AGGREGATIONS",
    "EVIDENCE_MODES",
    "EVIDENCE_POLICIES",
    "NOMINAL_AGGREGATIONS",
    "ON_ERROR",
    "ORDINAL_AGGREGATIONS",
    "OVER_BUDGET_POLICIES",
    "REPEAT_VARIATIONS",
    "SCALE_AGGREGATIONS",
    "VERDICT_METHODS",
    "VERDICT_METHOD_CHOICES",
    "BinaryAggregation",
    "EvidenceMode",
    "EvidencePolicy",
    "NominalAggregation",
    "OnError",
    "OrdinalAggregation",
    "OverBudget",
    "RepeatVariation",
    "ScaleAggregation",
    "VerdictMethod",
    "VerdictMethodChoice",
    "check_choice",
]

VerdictMethod = Literal["reason-first", "verdict-first", "verdict-only"]
"""How a criterion's answer is laid out (``benchmarks/judge_agreement.py`` compares them):

* ``reason-first``: a short reason, then the verdict (the reason can steer the verdict);
* ``verdict-first``: the verdict, then a short reason explaining it;
* ``verdict-only``: the verdict alone (fastest; the report's reason is empty).

Backends that expose token probabilities decide the verdict from them in every
layout and report its confidence.
"""
VERDICT_METHODS: tuple[VerdictMethod, ...] = get_args(VerdictMethod)
VerdictMethodChoice = Literal["auto", "reason-first", "verdict-first", "verdict-only"]
"""A grader's ``verdict_method``: a layout, or ``auto`` (each judge's own preference)."""
VERDICT_METHOD_CHOICES: tuple[VerdictMethodChoice, ...] = get_args(VerdictMethodChoice)

EvidenceMode = Literal["penalties", "all", "off"]
"""Which MET verdicts must be backed by a quote (``evidence``; see ``_evidence``)."""
EVIDENCE_MODES: tuple[EvidenceMode, ...] = get_args(EvidenceMode)
EvidencePolicy = Literal["downgrade", "cannot_assess", "record"]
"""What a MET without evidence becomes (``evidence_policy``; see ``_evidence``)."""
EVIDENCE_POLICIES: tuple[EvidencePolicy, ...] = get_args(EvidencePolicy)

RepeatVariation = Literal["auto", "temperature", "order"]
"""What varies between repeated judgments (``repeat_variation``; see ``_repeats``)."""
REPEAT_VARIATIONS: tuple[RepeatVariation, ...] = get_args(RepeatVariation)

OnError = Literal["record", "raise"]
"""What a criterion whose judges all failed does (``on_error``; see ``_combine``)."""
ON_ERROR: tuple[OnError, ...] = get_args(OnError)

BinaryAggregation = Literal["majority", "weighted", "unanimous", "any"]
"""How an ensemble decides a binary criterion (``aggregation``; see ``_ensemble``)."""
BINARY_AGGREGATIONS: tuple[BinaryAggregation, ...] = get_args(BinaryAggregation)
ScaleAggregation = Literal["weighted_mean", "mean", "median"]
SCALE_AGGREGATIONS: tuple[ScaleAggregation, ...] = get_args(ScaleAggregation)
OrdinalAggregation = Literal[
    "mean", "median", "weighted_mean", "mode", "weighted_mode", "min", "max", "unanimous"
]
ORDINAL_AGGREGATIONS: tuple[OrdinalAggregation, ...] = get_args(OrdinalAggregation)
NominalAggregation = Literal["mode", "weighted_mode", "unanimous"]
NOMINAL_AGGREGATIONS: tuple[NominalAggregation, ...] = get_args(NominalAggregation)

C = TypeVar("C", bound=str)


def check_choice(name: str, value: object, choices: Sequence[C], *, flag: str = "") -> C:
    """Return ``value`` as one of ``choices``.

    Args:
        name: the keyword the value was given as (``evidence_policy``).
        value: what was given.
        choices: the valid values.
        flag: the CLI flag that sets it, named in the message when given.

    Raises:
        ConfigError: ``value`` is none of ``choices``; the message lists them.
    """
    for choice in choices:
        if value == choice:
            return choice
    if len(choices) == 2:
        valid = f"{choices[0]!r} or {choices[1]!r}"
    else:
        valid = "one of: " + ", ".join(choices)
    where = f" ({flag})" if flag else ""
    raise ConfigError(f"{name} {value!r} is not {valid}{where}")
