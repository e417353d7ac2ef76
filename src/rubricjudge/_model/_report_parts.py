"""The small records a criterion report holds: usage, choices, votes, checks and turns.

:class:`~rubricjudge._model._reports.CriterionReport` carries them; each is its own
value so a grader can build it where it is decided.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ._criterion import Criterion, CriterionVerdict
from ._stability import Stability

__all__ = [
    "CalibrationRecord",
    "Escalation",
    "EvidenceCheck",
    "JudgeVote",
    "OptionSelection",
    "RelationRecord",
    "ScaleScore",
    "TokenUsage",
    "TurnReport",
]


class TokenUsage(BaseModel):
    """Tokens spent by one or more judge calls."""

    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return _summed([self, other])

    @classmethod
    def total(cls, usages: list[TokenUsage | None]) -> TokenUsage | None:
        """Sum of the given usages, or None when none is known."""
        known = [u for u in usages if u is not None]
        return _summed(known) if known else None


_USAGE_FIELDS = tuple(TokenUsage.model_fields)


def _summed(usages: list[TokenUsage]) -> TokenUsage:
    # model_validate of a dict: checked, and cheaper than model_construct (pydantic 2)
    return TokenUsage.model_validate(
        {name: sum(getattr(u, name) for u in usages) for name in _USAGE_FIELDS}
    )


class OptionSelection(BaseModel):
    """The option chosen on a multi-choice criterion."""

    model_config = ConfigDict(extra="forbid")

    index: int
    label: str
    value: float
    na: bool = False


class ScaleScore(BaseModel):
    """The number given on a criterion's scale (a criterion with ``scale``).

    ``score`` is on the criterion's scale (7.5 of 0-10, as OpenRubricRL's
    ``criterion_scores``); ``value`` is its credit in [0, 1], as an option's value.
    """

    model_config = ConfigDict(extra="forbid")

    score: float
    value: float

    @classmethod
    def of(cls, criterion: Criterion, score: float) -> ScaleScore:
        """The scale score ``score`` of ``criterion``, checked against its scale.

        Raises:
            ValueError: the criterion has no scale, or ``score`` is not on it (never
                clamped); the message says why.
        """
        if criterion.scale is None:
            raise ValueError(f"criterion {criterion.key!r} is not scored on a scale")
        problem = criterion.scale.problem(score)
        if problem is not None:
            raise ValueError(problem)
        return cls(score=float(score), value=criterion.scale.unit(score))


class JudgeVote(BaseModel):
    """One judge's decision on one criterion (an ensemble member, or a cascade step).

    ``shuffle_order`` is the option order this judge was shown (position -> option
    index) when options were shuffled, else None. ``confidence`` and
    ``probabilities`` come from the judge's token probabilities (see
    :class:`CriterionReport`); None where the backend exposes none.
    """

    model_config = ConfigDict(extra="forbid")

    judge_id: str
    weight: float = 1.0
    verdict: CriterionVerdict | None = None
    selection: OptionSelection | None = None
    scale_score: ScaleScore | None = None
    reason: str = ""
    error: str | None = None
    shuffle_order: list[int] | None = None
    confidence: float | None = None
    probabilities: dict[str, float] | None = None
    stability: Stability | None = None


class CalibrationRecord(BaseModel):
    """How a calibration file changed (or kept) one criterion's verdict.

    ``raw_verdict`` / ``raw_selection`` are the judge's own answer; ``p_calibrated``
    the calibrated probability of MET (binary) or of the chosen option, and
    ``threshold`` the decision threshold on it that the calibration learned.
    """

    model_config = ConfigDict(extra="forbid")

    raw_verdict: CriterionVerdict | None = None
    raw_selection: OptionSelection | None = None
    p_calibrated: float | None = None
    threshold: float | None = None
    changed: bool = False
    method: str = ""


class RelationRecord(BaseModel):
    """How the rubric's relations decided this criterion together with related ones.

    ``raw_verdict`` is the verdict the criterion's own answer gave, ``p_met`` the
    probability of MET the joint decision used (calibrated when a calibration applied;
    None when the judge gave no probabilities), ``changed`` whether the joint decision
    changed the verdict, and ``relations`` the relations it takes part in.
    """

    model_config = ConfigDict(extra="forbid")

    raw_verdict: CriterionVerdict | None = None
    p_met: float | None = None
    changed: bool = False
    relations: list[str] = Field(default_factory=list)


class EvidenceCheck(BaseModel):
    """Whether the judge's quote from the submission is really in it.

    ``similarity`` is the best match of the normalised quote in the normalised
    submission (1.0 = verbatim); ``found`` compares it with ``threshold`` and the
    quote's other rules, ``why`` saying which one failed when it is not found (the
    quote is not there, is one word, is negated there); ``action`` says what the
    evidence policy did (``kept``, ``downgraded``).
    """

    model_config = ConfigDict(extra="forbid")

    quote: str
    found: bool
    similarity: float
    threshold: float
    action: str = "kept"
    raw_verdict: CriterionVerdict | None = None
    why: str | None = None


class Escalation(BaseModel):
    """A criterion re-asked to a stronger judge because the first was unsure.

    ``first`` is the cheap judge's answer, ``second`` the stronger one's, and
    ``counted`` which of the two the report's verdict is (``second`` unless it
    failed).
    """

    model_config = ConfigDict(extra="forbid")

    below_confidence: float
    first: JudgeVote
    second: JudgeVote | None = None
    counted: str = "first"


class TurnReport(BaseModel):
    """The verdict on one assistant turn, for a criterion judged on every turn.

    ``turn`` counts the assistant's turns from 1; ``first`` and ``last`` are the
    turn's messages, numbered from 1 as judge prompts and pages number them.
    """

    model_config = ConfigDict(extra="forbid")

    turn: int
    first: int
    last: int
    verdict: CriterionVerdict | None = None
    selection: OptionSelection | None = None
    scale_score: ScaleScore | None = None
    reason: str = ""
    error: str | None = None
    error_category: str | None = None
    confidence: float | None = None
