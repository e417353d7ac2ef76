"""Per-criterion grading: one judge call per leaf criterion (and judge), concurrently."""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Self, cast

from .._aio import gather_all
from .._errors import ConfigError, JudgeError
from .._judges._base import Judge, JudgeRequest
from .._model._relations import decide_related
from .._model._reports import CriterionReport, EvaluationReport
from .._model._rubric import Criterion, Rubric, ScoringType
from .._model._scoring import assemble_reports, finalize
from ._aggregate import CURRENT_RUBRIC as _RUBRIC
from ._aggregate import call_aggregate as _call_aggregate
from ._base import GradeContext, GradePlan, Grader
from ._cascade import merge_escalation, should_escalate
from ._combine import apply_policy, combine
from ._ensemble import check_aggregation
from ._evidence import EVIDENCE_POLICIES, check_evidence, needs_evidence
from ._judging import Member, Outcome, ask, shuffle_order
from ._prompts import (
    CONVERSATION_HEADING,
    SYSTEM_CRITERION,
    VERDICT_METHODS,
    Prefix,
    VerdictMethod,
    approx_tokens,
    build_prefix,
    criterion_decision,
    criterion_prompt,
    criterion_schema,
)
from ._reasons import explain, needs_reason
from ._repeats import Repeats, ask_repeated, merged_stability, vary_order
from ._scoped import is_scoped, scope_calls, scoped_leaf
from ._shown import refused, shared_prefix, with_conversation_record

if TYPE_CHECKING:
    from .._calibration._model import Calibration
    from .._methods._functions import FunctionRegistry

__all__ = ["CriterionGrader", "PerCriterionGrader"]

Leaf = tuple[CriterionReport, int, int]  # report, judge calls, cached calls


class CriterionGrader(Grader):
    """Grades each leaf criterion in its own judge call, all concurrently.

    Negative criteria are asked so that MET means the error is present.
    Multi-choice criteria show numbered options and ask for the number.

    Args (beyond :class:`Grader`'s):
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
        aggregation: str = "majority",
        ordinal_aggregation: str = "mean",
        nominal_aggregation: str = "mode",
        shuffle_options: bool = False,
        add_na_option: bool = False,
        seed: int = 0,
        functions: FunctionRegistry | Mapping[str, Callable[..., Any]] | None = None,
        max_examples: int | None = None,
        verdict_method: str = "auto",
        calibration: Calibration | str | os.PathLike[str] | None = "default",
        evidence: str = "penalties",
        evidence_policy: str = "downgrade",
        escalate_to: Any = None,
        below_confidence: float = 0.7,
        offer_cannot_assess: bool = False,
        reasons: bool = True,
        repeats: int = 1,
        repeat_temperature: float = 0.7,
        repeat_variation: str = "auto",
        **options: Any,
    ) -> None:
        super().__init__(judge, **options)
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
        if evidence not in ("penalties", "all", "off"):
            raise ConfigError(f"evidence {evidence!r} is not one of: penalties, all, off")
        if evidence_policy not in EVIDENCE_POLICIES:
            raise ConfigError(
                f"evidence_policy {evidence_policy!r} is not one of: "
                + ", ".join(EVIDENCE_POLICIES)
            )
        self.evidence = evidence
        self.evidence_policy = evidence_policy
        self._use_default_calibration = calibration == "default"
        if calibration == "default":
            calibration = None
        if calibration is not None:
            from .._calibration._model import Calibration  # numpy: loaded only when calibrating

            if not isinstance(calibration, Calibration):
                calibration = Calibration.load(calibration)
        self.calibration = calibration
        self._defaults: dict[str, Any] = {}
        if verdict_method != "auto" and verdict_method not in VERDICT_METHODS:
            raise ConfigError(
                f"verdict_method {verdict_method!r} is not one of: auto, "
                + ", ".join(VERDICT_METHODS)
            )
        self.verdict_method = verdict_method
        if max_examples is not None and max_examples < 0:
            raise ConfigError(f"max_examples {max_examples!r} must be 0 or more (None: all)")
        self.max_examples = max_examples
        self.aggregation = aggregation
        self.ordinal_aggregation = ordinal_aggregation
        self.nominal_aggregation = nominal_aggregation
        self.shuffle_options = shuffle_options
        self.add_na_option = add_na_option
        self.seed = seed
        self.functions = functions

    # -- helpers shared with the one-shot grader -------------------------------------
    def effective(self, criterion: Criterion) -> Criterion:
        """Return the criterion as asked (with an N/A option when ``add_na_option``)."""
        if self.add_na_option and criterion.is_multi_choice:
            return criterion.with_guaranteed_na_option()
        return criterion

    def method_for(self, criterion: Criterion, index: int) -> str:
        """Return the ensemble aggregation for ``criterion`` (validated)."""
        if criterion.aggregation is not None:
            method: str = criterion.aggregation
        elif criterion.is_scored_on_scale:
            method = "weighted_mean"
        elif not criterion.is_multi_choice:
            method = self.aggregation
        elif criterion.scale_type == "nominal":
            method = self.nominal_aggregation
        else:
            method = self.ordinal_aggregation
        where = f"criteria[{criterion.key!r}]" if criterion.key else f"leaf criterion #{index}"
        return check_aggregation(criterion, method, where=where)

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
        return build_prefix(
            ctx.submission,
            query=ctx.query,
            reference=ctx.reference,
            reference_media=ctx.reference_media,
            guidelines=ctx.rubric.guidelines,
            examples=ctx.example_subs,
            text=self.render(ctx, keep).text if conversation else None,
            heading=CONVERSATION_HEADING if conversation else "The submission:",
        )

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
            return cast(VerdictMethod, self.verdict_method)
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
            self._with_calibration_examples(criterion),
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

    async def ask_one(
        self,
        ctx: GradeContext,
        prefix: Prefix,
        index: int,
        criterion: Criterion,
        member: Member,
        scope_note: str = "",
    ) -> Outcome:
        """Ask one judge about one leaf criterion (``repeats`` times when repeated).

        A verdict that costs points gets its reason afterwards, once, from the judge
        whose answer counted (with repeats: of the majority answer, not of each repeat).
        """
        if self.repeats.n > 1:
            out, member = await ask_repeated(
                self, ctx, prefix, index, criterion, member, scope_note
            )
        else:
            out, member = await self.judged(ctx, prefix, index, criterion, member, scope_note)
        if self.reasons and needs_reason(criterion, out):  # asked of the judge that counted
            system = self.criterion_system_prompt()
            await explain(out, ctx, prefix, criterion, member, system, self.limiter())
        return out

    async def judged(
        self,
        ctx: GradeContext,
        prefix: Prefix,
        index: int,
        criterion: Criterion,
        member: Member,
        scope_note: str = "",
        repeat: int = 0,
    ) -> tuple[Outcome, Member]:
        """One answer about one criterion, escalated when unsure; with the judge that counted.

        ``repeat``: which of the repeats this is.
        """
        out = await self.answer(ctx, prefix, index, criterion, member, scope_note, repeat)
        if self.escalate_to is not None and should_escalate(out, self.below_confidence):
            strong = self.strong_member()
            second = await self.answer(ctx, prefix, index, criterion, strong, scope_note, repeat)
            out = merge_escalation(criterion, out, second, self.below_confidence)
            if out is second:
                member = strong
        return out, member

    def recalibrates(self, member: Member) -> bool:
        """Whether a calibration re-decides ``member``'s answers from its probabilities."""
        return self.calibration_for(member) is not None

    async def answer(
        self,
        ctx: GradeContext,
        prefix: Prefix,
        index: int,
        criterion: Criterion,
        member: Member,
        scope_note: str = "",
        repeat: int = 0,
    ) -> Outcome:
        """One judge's answer about one criterion, calibrated and evidence-checked.

        Repeat ``k`` > 0 varies the question as ``_repeats`` describes.
        """
        order = self.order(ctx, criterion, index, member.id)
        cal = self.calibration_for(member)
        answer_order: list[int] | None = None
        variation = None
        if self.repeats.n > 1:
            variation = self.repeats.variation_for(member, calibrated=cal is not None)
            if variation == "order" and repeat > 0:
                order, answer_order = vary_order(self, ctx, index, criterion, member.id, repeat)
        method = self.method_of(member)
        req = self.request(ctx, prefix, index, criterion, order, method, scope_note, answer_order)
        if variation == "temperature":
            req = self.repeats.sampled(req, self.seed + repeat)
        if (self.features or (cal is not None and cal.needs_features())) and req.decision:
            req = replace(req, features=True)
        out = await ask(member, criterion, req, order=order, limiter=self.limiter())
        if cal is not None:
            from ._calibrated import calibrate_outcome

            calibrate_outcome(cal, criterion, out)
        if needs_evidence(criterion, out.verdict, self.evidence):
            system = self.criterion_system_prompt()
            await check_evidence(
                out, ctx, prefix, criterion, member, system, self.limiter(), self.evidence_policy
            )
        return out

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
            from .._judges._registry import get_judge

            judge = get_judge(self.escalate_to, **self._judge_options)
            name = str(getattr(judge, "name", None) or "escalation")
            self._strong = Member(id=name, weight=1.0, judge=judge)
        return self._strong

    def calibration_for(self, member: Member) -> Calibration | None:
        """The calibration applied to ``member``'s answers: the one given, else its own."""
        if self.calibration is not None:
            return self.calibration if self._calibrates(member) else None
        if self._use_default_calibration:
            return self.default_calibration(member)
        return None

    def default_calibration(self, member: Member) -> Calibration | None:
        """The calibration ``member``'s judge ships for the layout asked, if any."""
        if member.id not in self._defaults:
            path = getattr(member.judge, "default_calibration", None)
            found = None
            if path is not None:
                from .._calibration._model import Calibration

                cal = Calibration.load(path)
                if cal.verdict_method == self.method_of(member):
                    found = cal
            self._defaults[member.id] = found
        got: Calibration | None = self._defaults[member.id]
        return got

    def _with_calibration_examples(self, criterion: Criterion) -> Criterion:
        """``criterion`` with the examples the calibration chose for it, when it has none."""
        if self.calibration is None or criterion.examples:
            return criterion
        chosen = self.calibration.examples_for(criterion)
        return criterion.model_copy(update={"examples": chosen}) if chosen else criterion

    def _calibrates(self, member: Member) -> bool:
        """Whether this grader's calibration was fitted for ``member``'s judge.

        Raises:
            ConfigError: no judge of this grader is the calibration's judge, or the
                reply layout differs from the one it was fitted with.
        """
        cal = self.calibration
        assert cal is not None
        if getattr(member.judge, "name", member.id) != cal.judge:
            judges = [m.judge for m in self.members()]
            if self.escalate_to is not None:
                judges.append(self.strong_member().judge)
            names = sorted({str(getattr(j, "name", "")) for j in judges})
            if cal.judge not in names:
                raise ConfigError(
                    f"the calibration was fitted for the judge {cal.judge!r}, but this grader's "
                    f"judges are {names}; calibrate this judge (rubricjudge calibrate --judge ...) "
                    "or use its calibration file"
                )
            return False
        method = self.method_of(member)
        if method != cal.verdict_method:
            raise ConfigError(
                f"the calibration was fitted with --verdict-method {cal.verdict_method}, but "
                f"this grader asks with {method}; use the same method or calibrate again"
            )
        return True

    def decide(self, criterion: Criterion, index: int, outcomes: Sequence[Outcome]) -> Leaf:
        """Combine one criterion's outcomes under the failure policy."""
        report = combine(
            criterion,
            outcomes,
            method=self.method_for(criterion, index),
            ensemble=self.ensemble,
            policy=self.failure,
        )
        stability = merged_stability(outcomes)  # repeated judgments: the answers and flips
        if stability is not None:
            report = report.model_copy(update={"stability": stability})
        return report, sum(o.calls for o in outcomes), sum(1 for o in outcomes if o.cached)

    async def run_method(self, ctx: GradeContext, criterion: Criterion) -> CriterionReport:
        """Score a criterion whose method is not ``llm`` (code, schema, decode ...).

        A failure it records goes through the same failure policy as a judge's.
        """
        from .._methods._run import run_method

        judge = self.members()[0].judge
        if criterion.method is ScoringType.LLM_DECODE and ctx.submission.media:
            # the decode prompt is text: it would be asked about placeholders, not images
            error = JudgeError(
                "llm_decode sends the judge text only and this submission holds images or "
                "documents; score the criterion with the judge (scoring method 'llm')",
                category="bad_request",
            )
            out = Outcome(judge_id=criterion.method.value, error=error, cost=0.0)
            return combine(criterion, [out], method="majority", ensemble=False, policy=self.failure)
        # trajectory and media checks read the submission; the other methods the answer
        whole = criterion.method in (ScoringType.TRAJECTORY, ScoringType.MEDIA)
        target = ctx.submission if whole else None
        try:
            report = await run_method(
                criterion,
                ctx.submission.output if target is None else target,
                judge=judge,
                functions=self.functions,
            )
        except JudgeError as e:
            out = Outcome(judge_id=criterion.method.value, error=e, cost=0.0)
            return combine(criterion, [out], method="majority", ensemble=False, policy=self.failure)
        return apply_policy(report, self.failure)

    def check_methods(self, criteria: Sequence[Criterion]) -> None:
        """Raise ConfigError now for a non-``llm`` criterion that cannot run (before any call)."""
        others = [c for c in criteria if c.method is not ScoringType.LLM]
        if not others:
            return
        from .._methods._functions import FunctionRegistry
        from .._methods._run import check_method

        registry = FunctionRegistry.coerce(self.functions)
        judge = self.members()[0].judge
        for c in others:
            check_method(c, registry, judge)

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
            return refused(self, criterion, index, prefix)
        if is_scoped(ctx, criterion):
            return await scoped_leaf(self, ctx, prefix, index, criterion)
        members = self.members()
        outcomes = await gather_all(
            [self.ask_one(ctx, prefix, index, criterion, m) for m in members]
        )
        return self.decide(criterion, index, outcomes)

    async def finish(
        self, ctx: GradeContext, leaves: Sequence[Leaf], extra_calls: int = 0
    ) -> EvaluationReport:
        """Assemble leaf results and hand them to :meth:`aggregate` for the score."""
        # related criteria are decided together before anything is scored (``_relations``)
        decided = decide_related(ctx.rubric, [r for r, _, _ in leaves])
        reports = assemble_reports(ctx.rubric.criteria, decided)
        token = _RUBRIC.set(ctx.rubric)
        try:
            report = _call_aggregate(self.aggregate, reports, ctx.rubric, self.normalize)
        finally:
            _RUBRIC.reset(token)
        if inspect.isawaitable(report):
            report = await report
        if not isinstance(report, EvaluationReport):
            raise ConfigError(
                f"{type(self).__name__}.aggregate() returned {type(report).__name__}; it must "
                "return an EvaluationReport"
            )
        return report.model_copy(
            update={
                "judge_calls": sum(c for _, c, _ in leaves) + extra_calls,
                "cached_calls": sum(k for _, _, k in leaves),
                "metadata": {**self._metadata(), **report.metadata},
            }
        )

    def aggregate(
        self,
        reports: list[CriterionReport],
        *,
        rubric: Rubric | None = None,
        normalize: bool = True,
    ) -> EvaluationReport | Awaitable[EvaluationReport]:
        """Turn the criteria's results into the report's score (the seed's ``aggregate()``).

        Override it in a subclass to score differently, sync or ``async def``, as the
        seed writes it (``aggregate(self, judge_results, *, normalize=True)``) or with a
        ``rubric`` keyword too: it is passed only to an override that takes it. The
        default is the shared scoring (``_scoring.finalize``) with this grader's policy,
        on the rubric being graded (also when an override calls it without ``rubric``).
        """
        if rubric is None:
            rubric = _RUBRIC.get(None) or Rubric([r.criterion for r in reports])
        policy = self.policy
        if normalize != policy.normalize:
            policy = policy.with_normalize(normalize)
        return finalize(rubric, reports, policy)

    # -- the grader --------------------------------------------------------------
    async def _grade(self, ctx: GradeContext) -> EvaluationReport:
        criteria = [self.effective(c) for c in ctx.rubric.leaves()]
        for i, c in enumerate(criteria):
            self.method_for(c, i)  # usage errors before any call
        self.check_methods(criteria)
        prefix = shared_prefix(self, ctx)
        leaves = await gather_all([self.leaf(ctx, prefix, i, c) for i, c in enumerate(criteria)])
        return with_conversation_record(self, ctx, await self.finish(ctx, leaves))

    def _plan(self, ctx: GradeContext) -> GradePlan:
        prefix = shared_prefix(self, ctx)
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
