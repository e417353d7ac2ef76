"""What grading produces: token usage, per-criterion reports and evaluation reports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from ._rubric import Criterion, CriterionVerdict, ScoringType
from ._stability import Stability

if TYPE_CHECKING:
    from ._scoring import ScoringPolicy

__all__ = [
    "CalibrationRecord",
    "CriterionReport",
    "Escalation",
    "EvaluationReport",
    "EvidenceCheck",
    "JudgeVote",
    "MetricResult",
    "OptionSelection",
    "RelationRecord",
    "ScaleScore",
    "SectionScore",
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
        # sums of counts both sides already hold: nothing to validate (a few per judgment)
        return TokenUsage.model_construct(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens
            + other.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
        )

    @classmethod
    def total(cls, usages: list[TokenUsage | None]) -> TokenUsage | None:
        """Sum of the given usages, or None when none is known."""
        known = [u for u in usages if u is not None]
        if not known:
            return None
        return TokenUsage.model_construct(
            prompt_tokens=sum(u.prompt_tokens for u in known),
            completion_tokens=sum(u.completion_tokens for u in known),
            total_tokens=sum(u.total_tokens for u in known),
            cache_creation_input_tokens=sum(u.cache_creation_input_tokens for u in known),
            cache_read_input_tokens=sum(u.cache_read_input_tokens for u in known),
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


class CriterionReport(BaseModel):
    """A criterion with its result.

    ``verdict`` is set for binary criteria, ``selection`` for multi-choice ones,
    ``scale_score`` for criteria scored on a scale (``verdict`` is CANNOT_ASSESS
    when such a criterion could not be scored).
    ``error`` is set when the judge failed; the verdict is then whatever the
    grader's documented failure policy decided, and ``is_error`` is True.
    A parent criterion carries its children's reports in ``children``.

    ``confidence`` is the probability of the chosen verdict or option, read from
    the judge's token probabilities over the allowed answers (renormalised over
    them), and ``probabilities`` holds every answer's (``MET``/``UNMET``/
    ``CANNOT_ASSESS``, or option labels). Both are None where the backend exposes
    no probabilities; they are never taken from the judge's own words. An ensemble
    reports vote agreement in ``agreement`` beside them. ``calibration``,
    ``evidence_check``, ``escalation`` and ``relation`` (the rubric's relations
    deciding related criteria together) record what those steps did;
    ``stability`` what each repeat answered when the judgment was repeated.

    A criterion judged on every assistant turn keeps each turn's verdict in
    ``turns``; its own verdict combines them (``all`` / ``any``), and under ``mean``
    ``turn_credit`` holds the mean credit that the score counts (the verdict shown is
    then the majority's). ``notes`` says what else shaped the answer (a trajectory
    check's outcome, turns elided to fit the judge's budget).
    """

    model_config = ConfigDict(extra="forbid")

    criterion: Criterion
    verdict: CriterionVerdict | None = None
    selection: OptionSelection | None = None
    scale_score: ScaleScore | None = None
    reason: str = ""
    reasoning: str | None = None
    error: str | None = None
    error_category: str | None = None
    shuffle_order: list[int] | None = None
    children: list[CriterionReport] | None = None
    votes: list[JudgeVote] | None = None
    agreement: float | None = None
    confidence: float | None = None
    probabilities: dict[str, float] | None = None
    calibration: CalibrationRecord | None = None
    evidence_check: EvidenceCheck | None = None
    escalation: Escalation | None = None
    stability: Stability | None = None
    relation: RelationRecord | None = None
    level_id: str | None = None
    evidence: list[str] = Field(default_factory=list)
    notes: str = ""
    scoring_method_used: ScoringType | None = None
    llm_invocation: dict[str, Any] | None = None
    token_usage: TokenUsage | None = None
    completion_cost: float | None = None
    features: bytes | None = Field(default=None, exclude=True, repr=False)
    """The judge's hidden state at the decision (float16 bytes), kept in memory for
    ``calibrate --method probe``; never written to reports or files."""
    turns: list[TurnReport] | None = None
    turn_credit: float | None = None

    # -- seed-compatible accessors ---------------------------------------------
    @property
    def requirement(self) -> str:
        """The criterion's requirement."""
        return self.criterion.requirement

    @property
    def weight(self) -> float:
        """The criterion's weight."""
        return self.criterion.weight

    @property
    def name(self) -> str | None:
        """The criterion's name."""
        return self.criterion.name

    @property
    def key(self) -> str | None:
        """The criterion's id or name."""
        return self.criterion.key

    @property
    def multi_choice_verdict(self) -> OptionSelection | None:
        """The option chosen (autorubric's name for ``selection``)."""
        return self.selection

    @property
    def criterion_score(self) -> float | None:
        """The number on the criterion's scale (OpenRubricRL's per-criterion score), or None."""
        return self.scale_score.score if self.scale_score is not None else None

    @property
    def criterion_id(self) -> str | None:
        """The criterion's id, else its name (dataknobs' ``CriterionResult.criterion_id``)."""
        return self.criterion.key

    @property
    def score(self) -> float | None:
        """The credit of this result (dataknobs' ``CriterionResult.score``; ``score_value``).

        None where nothing was scored (a failure or N/A); dataknobs writes 0.0 there,
        which :class:`~rubricjudge.ScoringPolicy` ``"dataknobs"`` also counts.
        """
        return self.score_value

    @property
    def final_verdict(self) -> CriterionVerdict | None:
        """The binary verdict, None for multi-choice and parent criteria."""
        return self.verdict

    @property
    def final_reason(self) -> str:
        """The judge's short justification."""
        return self.reason

    @property
    def is_error(self) -> bool:
        """True when the result was synthesised because the judge failed."""
        return self.error is not None

    @property
    def is_na(self) -> bool:
        """True for CANNOT_ASSESS or an N/A option."""
        if self.verdict is CriterionVerdict.CANNOT_ASSESS:
            return True
        return self.selection is not None and self.selection.na

    @property
    def score_value(self) -> float | None:
        """Credit in [0, 1] of this report; None if N/A.

        1 for MET, 0 for UNMET, the option's value, the place on the criterion's scale.
        For a parent criterion, the weighted mean of its children (see ``_scoring``).
        """
        from ._scoring import report_value

        return report_value(self)


CriterionReport.model_rebuild()


class SectionScore(BaseModel):
    """The score of one section of a rubric."""

    model_config = ConfigDict(extra="forbid")

    section: str | None
    score: float | None
    raw_score: float
    criteria: int


class MetricResult(BaseModel):
    """One hybrid metric's result: a value in [0, 1], or the error that stopped it.

    ``raw`` is the metric's own number before mapping to [0, 1] (a BLEU of 0-100,
    a perplexity, a Flesch reading ease); ``value`` is None exactly when ``error`` is set.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    type: str
    weight: float
    value: float | None = None
    raw: float | None = None
    error: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class EvaluationReport(BaseModel):
    """The result of grading one submission against a rubric.

    ``score`` is in [0, 1] when normalised and None when nothing could be graded;
    ``raw_score`` is the weighted sum; ``llm_raw_score`` is what a holistic judge
    returned (0-100). ``overall_score`` maps ``score`` onto the rubric's scale
    (OpenRubricRL's ``overall_score``, never rounded: rewards use it) and
    ``scaled_score`` is the same rounded to a whole number on a discrete scale (for
    display); ``passed`` compares the score with ``pass_threshold``, when the
    rubric has those. When the judge failed on a criterion that carries weight,
    ``score`` is None and ``error`` says why, unless the grader opted in to
    ``judge_failure="partial"``: then ``score`` is a floor and ``partial`` is True.
    With hybrid metrics, ``score`` is the combined score, ``llm_score`` the judges'
    score before combining and ``metrics`` each metric's result (see ``_hybrid``).
    """

    model_config = ConfigDict(extra="forbid")

    # None when nothing could be graded; a default, so a report written without it
    # (as every writer leaving None fields out did) still reads back
    score: float | None = None
    raw_score: float | None = None
    llm_raw_score: float | None = None
    report: list[CriterionReport] | None = None
    cannot_assess_count: int = 0
    error_count: int = 0
    error: str | None = None
    token_usage: TokenUsage | None = None
    completion_cost: float | None = None
    overall_score: float | None = None
    scaled_score: float | None = None
    passed: bool | None = None
    # True when the judge failed on a weighted criterion and the grader's
    # judge_failure="partial" scored the floor over the decided criteria (see _scoring);
    # None otherwise, so reports without it read and write as before
    partial: bool | None = None
    length_penalty: float | None = None
    id: str | None = None
    judge_calls: int = 0
    cached_calls: int = 0
    feedback_summary: str | None = None
    llm_score: float | None = None
    metrics: list[MetricResult] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def weighted_score(self) -> float | None:
        """The score under dataknobs' name (``RubricEvaluation.weighted_score``)."""
        return self.score

    @property
    def criterion_results(self) -> list[CriterionReport]:
        """The per-criterion reports under dataknobs' name (empty for a holistic grade)."""
        return list(self.report or [])

    # dataknobs' RubricEvaluation fields, kept in metadata by its RubricExecutor
    @property
    def rubric_id(self) -> str | None:
        """The id of the rubric evaluated (dataknobs' ``RubricEvaluation.rubric_id``)."""
        return self.metadata.get("rubric_id")

    @property
    def rubric_version(self) -> str | None:
        """The version of the rubric evaluated (dataknobs' ``rubric_version``)."""
        return self.metadata.get("rubric_version")

    @property
    def target_id(self) -> str | None:
        """The id of what was evaluated (dataknobs' ``target_id``)."""
        return self.metadata.get("target_id")

    @property
    def target_type(self) -> str | None:
        """The kind of what was evaluated (dataknobs' ``target_type``)."""
        return self.metadata.get("target_type")

    @property
    def evaluated_at(self) -> str | None:
        """When it was evaluated, ISO 8601 in UTC (dataknobs' ``evaluated_at``)."""
        return self.metadata.get("evaluated_at")

    @property
    def evaluated_by(self) -> str | None:
        """Who evaluated it: the judge, or ``rubricjudge`` (dataknobs' ``evaluated_by``)."""
        return self.metadata.get("evaluated_by")

    def by_section(self, policy: ScoringPolicy | None = None) -> list[SectionScore]:
        """Scores per section, computed with the same rules as the whole report.

        Pass the ``policy`` the report was scored with (the default policy otherwise).
        """
        from ._scoring import DEFAULT_POLICY, section_scores

        return section_scores(self, policy if policy is not None else DEFAULT_POLICY)

    def to_jsonable(self) -> dict[str, Any]:
        """A JSON-ready dict with None fields left out, but ``score`` always there.

        ``"score": null`` says in the file that the item could not be graded.
        """
        data = self.model_dump(mode="json", exclude_none=True)
        return {"score": data.pop("score", None), **data}
