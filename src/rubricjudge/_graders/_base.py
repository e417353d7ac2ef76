"""What every grader shares: judges, scoring policy, failure policy, length penalty.

``grade()`` is async; ``grade_sync()`` wraps it (and works inside a running event
loop by using a worker thread). ``plan()`` counts judge calls and prompt tokens
without calling anything, for dry runs.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import hashlib
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, Self, TypeVar

from .._aio import run_sync
from .._conversations._media_part import MediaPart
from .._conversations._render_prompt import RenderedSubmission
from .._conversations._submission import is_part_list, render_for_prompt, to_reference
from .._errors import ConfigError
from .._judges._base import Judge
from .._judges._provider_limits import DEFAULT_CONCURRENCY
from .._judges._registry import get_judge
from .._model._reports import EvaluationReport
from .._model._rubric import Criterion, Rubric
from .._model._scoring import (
    CannotAssessStrategy,
    JudgeFailurePolicy,
    ScoringPolicy,
    on_scale,
)
from .._trace import span
from ._budget import members_budget
from ._combine import FailurePolicy
from ._ensemble import JudgeSpec
from ._inputs import (
    LengthPenalty,
    Submission,
    compute_length_penalty,
    example_labels,
    to_submission,
)
from ._judging import Member
from ._options import OVER_BUDGET_POLICIES, OnError, OverBudget, check_choice

__all__ = ["GradeContext", "GradePlan", "Grader"]

T = TypeVar("T")


class GradePlan(NamedTuple):
    """What a grade would cost: judge calls and approximate prompt tokens."""

    judge_calls: int
    prompt_tokens: int


@dataclass(frozen=True)
class GradeContext:
    """Everything about one item being graded."""

    rubric: Rubric
    submission: Submission
    query: str | None
    reference: str | None
    item_id: str | None
    example_subs: list[Submission]
    example_labels: list[list[str | None]]
    reference_media: tuple[MediaPart, ...] = ()

    @property
    def item_key(self) -> str:
        """The item id, or a hash of the submission: seeds option shuffling."""
        if self.item_id is not None:
            return self.item_id
        text = f"{self.submission.thinking}\x00{self.submission.output}"
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _as_rubric(rubric: object) -> Rubric:
    if isinstance(rubric, Rubric):
        return rubric
    if isinstance(rubric, list) and all(isinstance(c, Criterion) for c in rubric):
        return Rubric(rubric)
    raise ConfigError(f"rubric is {type(rubric).__name__}; give a Rubric or a list of Criterion")


class Grader(ABC):
    """Base class of the graders.

    Args:
        judge: a judge spec string (``"openai/gpt-4.1-mini"``, ``"local"``), a
            :class:`Judge`, or a ``generate_fn(system_prompt, user_prompt)`` callable.
            Defaults to ``"local"``.
        judges: several judges for an ensemble: specs, Judges, callables or
            :class:`JudgeSpec` (with an id and a weight). Not together with ``judge``.
        generate_fn: the ``rubric`` package's name for a callable judge.
        system_prompt: replaces the default system prompt.
        max_retries: retries of a reply that does not parse (the judge layer's
            ``max_parse_retries``); applies to judges built from specs or callables.
        default_fallback_verdicts: ``{"positive": ..., "negative": ...}`` verdicts given
            to a criterion whose judge failed (default: CANNOT_ASSESS).
        on_error: ``"record"`` (default) keeps failures in the report; ``"raise"`` raises.
        normalize, cannot_assess, partial_credit: the scoring policy.
        judge_failure: an item whose judge failed on a criterion that carries weight:
            ``"no_score"`` (the default: no score, the item is failed, its errors
            listed) or ``"partial"`` (the floor over the decided criteria, flagged
            ``partial``; see ``_model._scoring``). Rewards and the gate never use a
            partial score.
        length_penalty: subtracted from the score after scoring.
        concurrency: at most this many judge calls of this grader at once (the judge
            layer's shared limits apply as well).
        judge_options: options for building judges from specs (see ``JudgeConfig``).
        llm_config: an :class:`LLMConfig` (autorubric's API): its ``model`` is the judge
            spec and its other fields the judge options.
        conversation_budget: the most a conversation shown to a judge may be, in
            approximate tokens (characters / 4); None (the default) takes each judge's
            own budget (see ``_budget``). Text submissions have none.
        over_budget: what a conversation past the budget gets: ``"error"`` (the
            default: its judged criteria fail with category ``over_budget``, no judge
            is asked) or ``"elide"`` (the middle turns are left out, with a visible
            marker, and the report says how many).
    """

    kind: ClassVar[str] = "grader"
    default_system_prompt: ClassVar[str] = ""
    # set on an instance only when given, so runs made before they existed still resume
    conversation_budget: int | None = None
    over_budget: OverBudget = "error"

    def __init__(
        self,
        judge: Any = None,
        *,
        judges: Sequence[Any] | None = None,
        generate_fn: Any = None,
        system_prompt: str | None = None,
        max_retries: int | None = None,
        default_fallback_verdicts: Mapping[str, Any] | None = None,
        on_error: OnError = "record",
        normalize: bool = True,
        cannot_assess: CannotAssessStrategy | str = CannotAssessStrategy.SKIP,
        partial_credit: float = 0.5,
        length_penalty: LengthPenalty | None = None,
        concurrency: int | None = None,
        judge_options: Mapping[str, Any] | None = None,
        llm_config: Any = None,
        conversation_budget: int | None = None,
        over_budget: OverBudget = "error",
        judge_failure: JudgeFailurePolicy = "no_score",
    ) -> None:
        if llm_config is not None:  # autorubric's CriterionGrader(llm_config=LLMConfig(...))
            if judge is not None or judges is not None or generate_fn is not None:
                raise ConfigError("give llm_config= or a judge, not both")
            judge = getattr(llm_config, "model", None)
            if not isinstance(judge, str) or not judge:
                raise ConfigError(
                    "llm_config needs a model, like LLMConfig(model='openai/gpt-4.1-mini')"
                )
            judge_options = {**llm_config.judge_options(), **dict(judge_options or {})}
        if generate_fn is not None:
            if judge is not None:
                raise ConfigError("give judge= or generate_fn=, not both")
            judge = generate_fn
        if judges is not None and judge is not None:
            raise ConfigError("give judge= for one judge or judges=[...] for an ensemble, not both")
        specs = list(judges) if judges is not None else [judge if judge is not None else "local"]
        if not specs:
            raise ConfigError("judges=[] is empty; give at least one judge")
        self._specs = [s if isinstance(s, JudgeSpec) else JudgeSpec(s) for s in specs]
        self.ensemble = judges is not None and len(self._specs) > 1
        self.system_prompt = system_prompt or self.default_system_prompt
        self.failure = FailurePolicy.build(on_error, default_fallback_verdicts)
        try:
            strategy = CannotAssessStrategy(cannot_assess)
        except ValueError:
            valid = ", ".join(repr(s.value) for s in CannotAssessStrategy)
            raise ConfigError(f"cannot_assess {cannot_assess!r} is not one of {valid}") from None
        try:
            self.policy = ScoringPolicy(
                strategy, partial_credit, normalize, judge_failure=judge_failure
            )
        except ValueError as e:
            raise ConfigError(str(e)) from None
        self.normalize = normalize
        if length_penalty is not None and not isinstance(length_penalty, LengthPenalty):
            raise ConfigError("length_penalty must be a LengthPenalty")
        self.length_penalty = length_penalty
        if concurrency is not None and concurrency < 1:
            raise ConfigError(f"concurrency {concurrency!r} must be at least 1")
        self.concurrency = concurrency
        options = dict(judge_options or {})
        if concurrency is not None and concurrency > DEFAULT_CONCURRENCY:
            # the concurrency asked for is the one given: lift the provider's default
            # limit too (a limit set in judge_options still wins)
            options.setdefault("concurrency", concurrency)
        if max_retries is not None:
            options.setdefault("max_parse_retries", max_retries)
        self._judge_options = options
        if conversation_budget is not None:
            if isinstance(conversation_budget, bool) or not (
                isinstance(conversation_budget, int) and conversation_budget > 0
            ):
                raise ConfigError(
                    f"conversation_budget {conversation_budget!r} must be a whole number of "
                    "tokens, at least 1 (None: each judge's own)"
                )
            self.conversation_budget = conversation_budget
        if check_choice("over_budget", over_budget, OVER_BUDGET_POLICIES) != "error":
            self.over_budget = over_budget
        self._members: list[Member] | None = None
        self._limiters: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
        self._limiters = weakref.WeakKeyDictionary()

    # -- judges ------------------------------------------------------------------
    @property
    def judge_ids(self) -> list[str]:
        """The ids of the judges (resolving them if needed)."""
        return [m.id for m in self.members()]

    def members(self) -> list[Member]:
        """Build the judges on first use (so a dry run builds nothing heavy)."""
        if self._members is None:
            members: list[Member] = []
            seen: dict[str, int] = {}
            for spec in self._specs:
                judge: Judge = get_judge(spec.judge, **self._judge_options)
                base = spec.id or getattr(judge, "name", None) or "judge"
                seen[base] = seen.get(base, 0) + 1
                jid = base if seen[base] == 1 else f"{base}#{seen[base]}"
                members.append(Member(id=jid, weight=spec.weight, judge=judge))
            self._members = members
        return self._members

    def with_judges(self, wrap: Callable[[Judge], Judge]) -> Self:
        """Return a copy of this grader whose judges are ``wrap(judge)`` (to record, cache ...).

        Ids, weights and the concurrency limit are kept; this grader is unchanged.
        """
        clone = copy.copy(self)
        clone._members = [dataclasses.replace(m, judge=wrap(m.judge)) for m in self.members()]
        return clone

    def budget(self) -> int:
        """The conversation budget of this grader's judges (see ``conversation_budget``)."""
        if self.conversation_budget is not None:
            return self.conversation_budget
        return members_budget([m.judge for m in self.members()], self._judge_options)

    def render(self, ctx: GradeContext, keep: Sequence[int] = ()) -> RenderedSubmission:
        """The submission as the judges see it, within the budget.

        Raises:
            JudgeError: category ``over_budget``, under ``over_budget="error"``.
        """
        if ctx.submission.conversation is None:
            return render_for_prompt(ctx.submission)
        return render_for_prompt(
            ctx.submission,
            budget=self.budget(),
            over_budget=self.over_budget,
            keep=keep,
        )

    @property
    def n_judges(self) -> int:
        """How many judges vote on each criterion."""
        return len(self._specs)

    def limiter(self) -> AbstractAsyncContextManager[Any] | None:
        """Return this grader's concurrency limit in the running loop, or None."""
        if self.concurrency is None:
            return None
        loop = asyncio.get_running_loop()
        sem = self._limiters.get(loop)
        if sem is None:
            sem = self._limiters[loop] = asyncio.Semaphore(self.concurrency)
        return sem

    # -- grading -----------------------------------------------------------------
    def _context(
        self,
        rubric: object,
        to_grade: Any,
        query: str | None,
        reference_submission: Any,
        item_id: str | None,
        examples: Sequence[Any] | None,
    ) -> GradeContext:
        if (
            isinstance(to_grade, Rubric | list)
            and (isinstance(rubric, str | Mapping) or _is_messages(rubric))
            and not is_part_list(to_grade)
        ):
            rubric, to_grade = to_grade, rubric  # autorubric's order: grade(to_grade, rubric)
        r = _as_rubric(rubric)
        subs, labels = example_labels(r, examples)
        ref = to_reference(reference_submission)  # text, or parts with images
        return GradeContext(
            rubric=r,
            submission=to_submission(to_grade),
            query=query,
            reference=ref.output if ref is not None else None,
            item_id=item_id,
            example_subs=subs,
            example_labels=labels,
            reference_media=ref.media if ref is not None else (),
        )

    async def grade(
        self,
        rubric: Rubric | list[Criterion],
        to_grade: Any,
        *,
        query: str | None = None,
        reference_submission: Any = None,
        item_id: str | None = None,
        examples: Sequence[Any] | None = None,
    ) -> EvaluationReport:
        """Grade ``to_grade`` (text, thinking and output, or a conversation) against ``rubric``."""
        ctx = self._context(rubric, to_grade, query, reference_submission, item_id, examples)
        with span("rubricjudge.item") as s:
            report = await self._grade(ctx)
            if s is not None:
                _describe_item(s, ctx, report)
        fields: dict[str, Any] = {"id": item_id}
        if self.length_penalty is not None:
            penalty = compute_length_penalty(ctx.submission, self.length_penalty)
            fields["length_penalty"] = penalty
            if report.score is not None:
                score = report.score - penalty
                if self.normalize:
                    score = max(0.0, score)
                    fields.update(on_scale(ctx.rubric.scale, score))
                    if ctx.rubric.pass_threshold is not None:
                        passed = score >= ctx.rubric.pass_threshold
                        # a partial score is a floor: below the threshold says nothing
                        fields["passed"] = passed if passed or not report.partial else None
                fields["score"] = score
        return report.model_copy(update=fields)

    def grade_sync(
        self,
        rubric: Rubric | list[Criterion],
        to_grade: Any,
        *,
        query: str | None = None,
        reference_submission: Any = None,
        item_id: str | None = None,
        examples: Sequence[Any] | None = None,
    ) -> EvaluationReport:
        """Blocking :meth:`grade`."""
        return run_sync(
            self.grade(
                rubric,
                to_grade,
                query=query,
                reference_submission=reference_submission,
                item_id=item_id,
                examples=examples,
            )
        )

    def plan(
        self,
        rubric: Rubric | list[Criterion],
        to_grade: Any = "",
        *,
        query: str | None = None,
        reference_submission: Any = None,
        examples: Sequence[Any] | None = None,
    ) -> GradePlan:
        """Judge calls and approximate prompt tokens a grade would take; calls nothing.

        Re-asks after failures are not counted.
        """
        ctx = self._context(rubric, to_grade, query, reference_submission, None, examples)
        return self._plan(ctx)

    @abstractmethod
    async def _grade(self, ctx: GradeContext) -> EvaluationReport:
        """Grade one item (before the length penalty)."""

    @abstractmethod
    def _plan(self, ctx: GradeContext) -> GradePlan:
        """Count the calls and prompt tokens of one item."""

    def _metadata(self) -> dict[str, Any]:
        return {"grader": self.kind, "judges": [s.id or _spec_name(s.judge) for s in self._specs]}


def _is_messages(value: Any) -> bool:
    """A list of chat messages (a conversation given first, in autorubric's order)."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, Mapping) and "role" in m for m in value)
    )


def _spec_name(judge: Any) -> str:
    if isinstance(judge, str):
        return judge
    return str(getattr(judge, "name", None) or getattr(judge, "__name__", None) or "judge")


def _describe_item(s: Any, ctx: GradeContext, report: EvaluationReport) -> None:
    """The item span's attributes: what was graded, its score, how many judgments failed."""
    attrs: dict[str, Any] = {
        "rubricjudge.rubric": ctx.rubric.name or "",
        "rubricjudge.criteria": len(ctx.rubric.criteria),
        "rubricjudge.judge_calls": report.judge_calls,
        "rubricjudge.cached_calls": report.cached_calls,
        "rubricjudge.judge_errors": report.error_count,
    }
    if ctx.item_id is not None:
        attrs["rubricjudge.item_id"] = ctx.item_id
    if report.score is not None:
        attrs["rubricjudge.score"] = report.score
    usage = report.token_usage
    if usage is not None:
        attrs["gen_ai.usage.input_tokens"] = usage.prompt_tokens
        attrs["gen_ai.usage.output_tokens"] = usage.completion_tokens
    s.set_attributes(attrs)
    if report.score is None or report.error:
        from opentelemetry.trace import Status, StatusCode  # loaded only when tracing is on

        error = report.error or "no criterion could be graded"
        s.set_attribute("rubricjudge.error", error)
        s.set_status(Status(StatusCode.ERROR, error[:200]))
