"""Per-criterion grading: one judge call per leaf criterion (and judge), concurrently.

Where a criterion's verdict is decided: :meth:`CriterionGrader.answer` asks one
judge (then calibrates the answer and checks its evidence), :meth:`~CriterionGrader.judged`
adds the escalation, :meth:`~CriterionGrader.ask_one` the repeats and the reason, and
``LeafGrader.decide`` (``_leaves``) combines the judges' answers under the failure
policy. Helpers get only what they need: ``_repeats`` a callable per repeat,
``_scoped`` the ``TurnGrader`` protocol, ``_shown`` the prefix builder and the judges.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Self, cast

from .._aio import gather_all
from .._errors import ConfigError, JudgeError
from .._judges._base import Judge, JudgeRequest
from .._judges._registry import get_judge
from .._model._reports import EvaluationReport
from .._model._rubric import Criterion, ScoringType
from ._base import GradeContext, GradePlan
from ._calibrated import (
    calibrate_outcome,
    fitted_for,
    judge_calibration,
    load_calibration,
    with_calibration_examples,
)
from ._cascade import merge_escalation, should_escalate
from ._criterion_prompts import criterion_decision, criterion_prompt, criterion_schema
from ._evidence import check_evidence, needs_evidence
from ._judging import Member, Outcome, ask, shuffle_order
from ._leaves import LeafGrader
from ._options import (
    EVIDENCE_MODES,
    EVIDENCE_POLICIES,
    VERDICT_METHOD_CHOICES,
    VERDICT_METHODS,
    BinaryAggregation,
    EvidenceMode,
    EvidencePolicy,
    NominalAggregation,
    OrdinalAggregation,
    RepeatVariation,
    VerdictMethod,
    VerdictMethodChoice,
    check_choice,
)
from ._prompts import SYSTEM_CRITERION, Prefix, approx_tokens, item_prefix
from ._question import Leaf, Question
from ._reasons import explain, needs_reason
from ._repeats import Repeats, ask_repeated, vary_order
from ._scoped import is_scoped, scope_calls, scoped_leaf
from ._shown import shared_prefix, unasked, with_conversation_record

if TYPE_CHECKING:
    from .._calibration._groups import Calibration
    from .._methods._functions import FunctionRegistry

__all__ = ["CriterionGrader", "PerCriterionGrader"]


class CriterionGrader(LeafGrader):
    """Grades each leaf criterion in its own judge call, all concurrently.

    Negative criteria are asked so that MET means the error is present.
    Multi-choice criteria show numbered options and ask for the number.

    Args (beyond :class:`Grader`'s; the aggregations and ``functions`` are
    :class:`LeafGrader`'s):
        aggregation: binary ensemble aggregation (``majority``, ``weighted``,
            ``unanimous``, ``any``).
        ordinal_aggregation / nominal_aggregation: for multi-choice criteria; a
            criterion's own ``aggregation`` overrides these.
        shuffle_options: show options in a reproducible random order, seeded by the
            item (``item_id`` or the submission's hash), the criterion and the judge.
        add_na_option: give multi-choice criteria without one an N/A option.
        seed: mixed into the shuffle seed.
        verdict_method: how the reply is laid out: ``reason-first``, ``verdict-first``
            or ``verdict-only`` (see ``VERDICT_METHODS``); ``auto`` (the default) takes
            each judge's own preferred layout (``preferred_verdict_method``), else
            ``reason-first``.
        calibration: a :class:`Calibration` (or the path of a calibration file) fitted
            by ``rubricjudge calibrate``: answers of the judge it was fitted for are
            re-decided from their token probabilities (see ``_calibrated``). By default
            (``"default"``) a judge that ships its own calibration (the bundled local
            model) uses it in the layout it was fitted for; ``None`` turns that off.
        evidence: which MET verdicts must be backed by a quote from the submission:
            ``penalties`` (the default), ``all`` or ``off`` (see ``_evidence``).
        evidence_policy: what a MET without evidence becomes: ``downgrade`` (UNMET,
            the default), ``cannot_assess`` or ``record`` (kept, only recorded).
        escalate_to: a stronger judge (spec, Judge or callable) that re-answers the
            criteria whose first answer's confidence is below ``below_confidence``
            (see ``_cascade``).
        below_confidence: the confidence under which an answer is escalated (0.7).
        reasons: with ``verdict-only``, ask the judge one more short question for each
            criterion that costs points (an UNMET requirement, a MET penalty) so its
            report says why (see ``_reasons``); True by default.
        offer_cannot_assess: let the judge answer ``cannot_assess`` on binary criteria
            (off by default: small judges answer it for off-topic submissions, which the
            ``skip`` strategy then leaves out, raising their score).
        functions: a :class:`FunctionRegistry` or ``{ref: function}`` dict for criteria
            scored by ``function`` or ``json_schema`` (used as given, not copied).
        repeats: ask each judgment this many times and keep the most common answer;
            each criterion's report records every answer and its flip rate
            (``stability``; see ``_repeats`` for the variation and the tie policy).
        repeat_temperature: the sampling temperature of repeats that vary it (0.7).
        repeat_variation: ``auto`` (the default: by judge), ``temperature`` or ``order``.
    """

    kind = "per-criterion"
    default_system_prompt = SYSTEM_CRITERION

    def __init__(
        self,
        judge: Any = None,
        *,
        aggregation: BinaryAggregation = "majority",
        ordinal_aggregation: OrdinalAggregation = "mean",
        nominal_aggregation: NominalAggregation = "mode",
        shuffle_options: bool = False,
        add_na_option: bool = False,
        seed: int = 0,
        functions: FunctionRegistry | Mapping[str, Callable[..., Any]] | None = None,
        max_examples: int | None = None,
        verdict_method: VerdictMethodChoice = "auto",
        calibration: Calibration | str | os.PathLike[str] | None = "default",
        evidence: EvidenceMode = "penalties",
        evidence_policy: EvidencePolicy = "downgrade",
        escalate_to: Any = None,
        below_confidence: float = 0.7,
        offer_cannot_assess: bool = False,
        reasons: bool = True,
        repeats: int = 1,
        repeat_temperature: float = 0.7,
        repeat_variation: RepeatVariation = "auto",
        **options: Any,
    ) -> None:
        super().__init__(
            judge,
            aggregation=aggregation,
            ordinal_aggregation=ordinal_aggregation,
            nominal_aggregation=nominal_aggregation,
            functions=functions,
            **options,
        )
        self.repeats = Repeats.build(repeats, repeat_temperature, repeat_variation)
        self.reasons = reasons
        self.features = False
        """Ask judges for their hidden state on every decision (``calibrate`` sets it to
        fit probes); a calibration with a probe asks for it anyway."""
        self.offer_cannot_assess = offer_cannot_assess
        if not 0.0 <= below_confidence <= 1.0:
            raise ConfigError(f"below_confidence {below_confidence!r} must be between 0 and 1")
        self.escalate_to = escalate_to
        self.below_confidence = below_confidence
        self._strong: Member | None = None
        self.evidence = check_choice("evidence", evidence, EVIDENCE_MODES)
        self.evidence_policy = check_choice("evidence_policy", evidence_policy, EVIDENCE_POLICIES)
        self._use_default_calibration = calibration == "default"
        self.calibration = None if calibration == "default" else load_calibration(calibration)
        self._defaults: dict[str, Calibration | None] = {}
        self.verdict_method = check_choice("verdict_method", verdict_method, VERDICT_METHOD_CHOICES)
        if max_examples is not None and max_examples < 0:
            raise ConfigError(f"max_examples {max_examples!r} must be 0 or more (None: all)")
        self.max_examples = max_examples
        self.shuffle_options = shuffle_options
        self.add_na_option = add_na_option
        self.seed = seed

    # -- what is asked -----------------------------------------------------------
    def effective(self, criterion: Criterion) -> Criterion:
        """Return the criterion as asked (with an N/A option when ``add_na_option``)."""
        if self.add_na_option and criterion.is_multi_choice:
            return criterion.with_guaranteed_na_option()
        return criterion

    def criterion_system_prompt(self) -> str:
        """Return the system prompt of a call about one criterion."""
        return self.system_prompt

    def prefix(self, ctx: GradeContext, keep: Sequence[int] = ()) -> Prefix:
        """Build the shared prompt prefix of ``ctx``'s submission.

        A conversation is rendered within the judges' budget; ``keep`` lists messages
        that must stay if turns are elided.

        Raises:
            JudgeError: category ``over_budget`` (under ``over_budget="error"``).
        """
        conversation = ctx.submission.conversation is not None
        return item_prefix(ctx, self.render(ctx, keep).text if conversation else None)

    def order(
        self, ctx: GradeContext, criterion: Criterion, index: int, member_id: str
    ) -> list[int] | None:
        """Return the option order shown to ``member_id``, or None when not shuffling."""
        if not (self.shuffle_options and criterion.is_multi_choice):
            return None
        return shuffle_order(
            criterion, seed=self.seed, item_key=ctx.item_key, index=index, judge_id=member_id
        )

    def method_of(self, member: Member | None) -> VerdictMethod:
        """The reply layout asked of ``member``'s judge (resolving ``auto``)."""
        if self.verdict_method != "auto":
            return self.verdict_method
        preferred = getattr(member.judge, "preferred_verdict_method", None) if member else None
        return cast(VerdictMethod, preferred if preferred in VERDICT_METHODS else "reason-first")

    def request(
        self,
        ctx: GradeContext,
        prefix: Prefix,
        index: int,
        criterion: Criterion,
        order: list[int] | None,
        method: VerdictMethod = "reason-first",
        scope_note: str = "",
        answer_order: list[int] | None = None,
    ) -> JudgeRequest:
        """Build the judge request about one leaf criterion.

        ``scope_note`` (a line saying which part of a conversation to decide it on)
        goes after the shared prefix, so the prefix stays shared. ``answer_order``
        shows a binary criterion's answers in another order (repeats).
        """
        labels = ctx.example_labels[index] if ctx.example_labels else []
        suffix = criterion_prompt(
            with_calibration_examples(self.calibration, criterion),
            order=order,
            example_labels=labels,
            max_examples=self.max_examples,
            method=method,
            offer_cannot_assess=self.offer_cannot_assess,
            answer_order=answer_order,
        )
        return JudgeRequest(
            system=self.criterion_system_prompt(),
            user=prefix.text + scope_note + suffix,
            schema=criterion_schema(criterion, method, self.offer_cannot_assess, answer_order),
            schema_name="criterion_judgment",
            shared_prefix_chars=len(prefix.text),
            media=prefix.media,
            pool_chars=(prefix.submission_at, len(prefix.text)),
            decision=criterion_decision(criterion, self.offer_cannot_assess),
            tags={"criterion": index, "key": criterion.key, "item": ctx.item_id},
        )

    # -- asking the judges -------------------------------------------------------
    async def ask_one(self, question: Question, member: Member) -> Outcome:
        """Ask one judge ``question`` (``repeats`` times when repeated).

        A verdict that costs points gets its reason afterwards, once, from the judge
        whose answer counted (with repeats: of the majority answer, not of each repeat).
        """
        if self.repeats.n > 1:
            variation = self.repeats.variation_for(member, calibrated=self.recalibrates(member))
            judged = functools.partial(self.judged, question, member)
            out, member = await ask_repeated(
                question.criterion, member, self.repeats, variation, judged
            )
        else:
            out, member = await self.judged(question, member)
        if self.reasons and needs_reason(question.criterion, out):  # of the judge that counted
            system = self.criterion_system_prompt()
            await explain(out, question, member, system, self.limiter())
        return out

    async def judged(
        self, question: Question, member: Member, repeat: int = 0
    ) -> tuple[Outcome, Member]:
        """One answer to ``question``, escalated when unsure; with the judge that counted.

        ``repeat``: which of the repeats this is.
        """
        out = await self.answer(question, member, repeat)
        if self.escalate_to is not None and should_escalate(out, self.below_confidence):
            strong = self.strong_member()
            second = await self.answer(question, strong, repeat)
            out = merge_escalation(question.criterion, out, second, self.below_confidence)
            if out is second:
                member = strong
        return out, member

    async def answer(self, question: Question, member: Member, repeat: int = 0) -> Outcome:
        """One judge's answer to ``question``, calibrated and evidence-checked.

        Repeat ``k`` > 0 varies the question as ``_repeats`` describes.
        """
        ctx, index, criterion = question.ctx, question.index, question.criterion
        order = self.order(ctx, criterion, index, member.id)
        cal = self.calibration_for(member)
        answer_order: list[int] | None = None
        variation = None
        if self.repeats.n > 1:
            variation = self.repeats.variation_for(member, calibrated=cal is not None)
            if variation == "order" and repeat > 0:
                order, answer_order = vary_order(
                    criterion,
                    index,
                    item_key=ctx.item_key,
                    member_id=member.id,
                    repeat=repeat,
                    seed=self.seed,
                    offer_cannot_assess=self.offer_cannot_assess,
                )
        method = self.method_of(member)
        req = self.request(
            ctx, question.prefix, index, criterion, order, method, question.scope_note, answer_order
        )
        if variation == "temperature":
            req = self.repeats.sampled(req, self.seed + repeat)
        if (self.features or (cal is not None and cal.needs_features())) and req.decision:
            req = replace(req, features=True)
        out = await ask(member, criterion, req, order=order, limiter=self.limiter())
        if cal is not None:
            calibrate_outcome(cal, criterion, out)
        if needs_evidence(criterion, out.verdict, self.evidence):
            system = self.criterion_system_prompt()
            await check_evidence(
                out, question, member, system, self.limiter(), self.evidence_policy
            )
        return out

    async def ask_all(self, question: Question) -> Leaf:
        """Ask every judge ``question`` and decide the criterion from their answers."""
        outcomes = await gather_all([self.ask_one(question, m) for m in self.members()])
        return self.decide(question.criterion, question.index, outcomes)

    def refuse(self, criterion: Criterion, index: int, error: JudgeError) -> Leaf:
        """The result of a judged criterion whose judges could not be asked (``error``)."""
        return self.decide(criterion, index, unasked(self.members(), error))

    # -- the escalation judge and the calibration --------------------------------
    def with_judges(self, wrap: Callable[[Judge], Judge]) -> Self:
        """A copy whose judges, the ``escalate_to`` judge included, are ``wrap(judge)``.

        A run records and replays the second judge's answers like the first's.
        """
        clone = super().with_judges(wrap)
        if self.escalate_to is not None:
            strong = self.strong_member()
            clone._strong = Member(id=strong.id, weight=strong.weight, judge=wrap(strong.judge))
        return clone

    def strong_member(self) -> Member:
        """The judge of ``escalate_to``, built on first use."""
        if self._strong is None:
            judge = get_judge(self.escalate_to, **self._judge_options)
            name = str(getattr(judge, "name", None) or "escalation")
            self._strong = Member(id=name, weight=1.0, judge=judge)
        return self._strong

    def recalibrates(self, member: Member) -> bool:
        """Whether a calibration re-decides ``member``'s answers from its probabilities."""
        return self.calibration_for(member) is not None

    def calibration_for(self, member: Member) -> Calibration | None:
        """The calibration applied to ``member``'s answers: the one given, else its own.

        Raises:
            ConfigError: the calibration given fits none of this grader's judges, or
                another reply layout (see ``_calibrated.fitted_for``).
        """
        if self.calibration is not None:
            name = getattr(member.judge, "name", member.id)
            method = self.method_of(member)
            fits = fitted_for(self.calibration, name, method, self._judge_names)
            return self.calibration if fits else None
        if self._use_default_calibration:
            return self.default_calibration(member)
        return None

    def default_calibration(self, member: Member) -> Calibration | None:
        """The calibration ``member``'s judge ships for the layout asked, if any."""
        if member.id not in self._defaults:
            path = getattr(member.judge, "default_calibration", None)
            found = None if path is None else judge_calibration(path, self.method_of(member))
            self._defaults[member.id] = found
        return self._defaults[member.id]

    def _judge_names(self) -> list[str]:
        judges = [m.judge for m in self.members()]
        if self.escalate_to is not None:
            judges.append(self.strong_member().judge)
        return sorted({str(getattr(j, "name", "")) for j in judges})

    # -- grading ----------------------------------------------------------------
    async def leaf(
        self, ctx: GradeContext, prefix: Prefix | JudgeError, index: int, criterion: Criterion
    ) -> Leaf:
        """Grade one leaf criterion with every judge.

        ``prefix`` is the error that kept the submission from the judges (a
        conversation over the budget): judged criteria then record it, unasked.
        """
        if criterion.method is not ScoringType.LLM:
            return await self.run_method(ctx, criterion), 0, 0
        if isinstance(prefix, JudgeError):
            return self.refuse(criterion, index, prefix)
        question = Question(ctx, prefix, index, criterion)
        if is_scoped(ctx, criterion):
            return await scoped_leaf(self, question)
        return await self.ask_all(question)

    async def _grade(self, ctx: GradeContext) -> EvaluationReport:
        criteria = [self.effective(c) for c in ctx.rubric.leaves()]
        for i, c in enumerate(criteria):
            self.method_for(c, i)  # usage errors before any call
        self.check_methods(criteria)
        prefix = shared_prefix(self.prefix, ctx)
        leaves = await gather_all([self.leaf(ctx, prefix, i, c) for i, c in enumerate(criteria)])
        return with_conversation_record(self, ctx, await self.finish(ctx, leaves))

    def _plan(self, ctx: GradeContext) -> GradePlan:
        prefix = shared_prefix(self.prefix, ctx)
        if isinstance(prefix, JudgeError):  # over the budget: no judge would be asked
            return GradePlan(0, 0)
        calls = tokens = 0
        system = approx_tokens(self.criterion_system_prompt())
        for i, leaf in enumerate(ctx.rubric.leaves()):
            c = self.effective(leaf)
            if c.method is not ScoringType.LLM:
                continue
            req = self.request(ctx, prefix, i, c, None, self.method_of(self.members()[0]))
            # every assistant turn is one ask, and each ask is made ``repeats`` times
            asks = self.n_judges * scope_calls(ctx, c) * self.repeats.n
            calls += asks
            tokens += asks * (system + approx_tokens(req.user))
        return GradePlan(calls, tokens)


PerCriterionGrader = CriterionGrader
