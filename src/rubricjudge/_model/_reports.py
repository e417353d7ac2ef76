"""What grading produces: per-criterion reports and evaluation reports.

The small records a criterion report holds (token usage, option selections, votes,
checks, turns) are in ``_report_parts`` and re-exported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from ._report_parts import (
    CalibrationRecord,
    Escalation,
    EvidenceCheck,
    JudgeVote,
    OptionSelection,
    RelationRecord,
    ScaleScore,
    TokenUsage,
    TurnReport,
)
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
