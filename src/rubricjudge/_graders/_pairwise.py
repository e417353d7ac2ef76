"""Pairwise grading: which of two submissions does better, asked in both orders.

Per criterion (or once for the whole rubric with ``mode="holistic"``) the judge
sees both submissions, as answer 1 and answer 2, and names the one a statement
is more true of, or a tie. Every comparison is asked twice, ``a`` first and then
``b`` first; ``_pairwise_combine`` turns the answers into preferences and the
score. A failed call is recorded on its order and leaves the criterion out of
the score (``on_error="raise"`` raises it instead); it is never a preference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from .._aio import gather_all, run_sync
from .._errors import ConfigError, JudgeError
from .._judges._base import JudgeRequest
from .._model._pairwise import CriterionPreference, PairwiseReport, Preference, Side
from .._model._reports import EvaluationReport, TokenUsage
from .._model._rubric import Criterion, Rubric, ScoringType
from .._model._stability import Variation
from ._base import GradeContext, GradePlan, Grader, _as_rubric
from ._inputs import Submission, to_submission
from ._judging import Member, Outcome, call
from ._options import (
    VERDICT_METHOD_CHOICES,
    VERDICT_METHODS,
    RepeatVariation,
    VerdictMethod,
    VerdictMethodChoice,
    check_choice,
)
from ._pairwise_combine import (
    Asked,
    criterion_preference,
    member_answer,
    order_answer,
    read_position,
    score_of,
)
from ._pairwise_prompts import (
    PAIRWISE_ANSWERS,
    SYSTEM_PAIRWISE,
    PairPrefix,
    build_pair_prefix,
    pairwise_criterion_prompt,
    pairwise_decision,
    pairwise_holistic_prompt,
    pairwise_schema,
)
from ._prompts import approx_tokens
from ._repeats import Repeats, permutation

__all__ = ["PAIRWISE_MODES", "PairwiseGrader", "weighted_leaves"]

PAIRWISE_MODES = ("per-criterion", "holistic")
_LABELS = ("a", "b", "tie")
_ORDERS: tuple[Side, Side] = ("a", "b")  # a shown first, then b shown first


def weighted_leaves(rubric: Rubric) -> list[tuple[Criterion, float]]:
    """Each leaf criterion with its weight in the whole rubric.

    A subcriterion's weight is its share of its siblings' total times its parent's.
    """
    out: list[tuple[Criterion, float]] = []

    def walk(c: Criterion, weight: float) -> None:
        kids = c.subcriteria or []
        if not kids:
            out.append((c, weight))
            return
        total = sum(abs(k.weight) for k in kids) or 1.0
        for k in kids:
            walk(k, weight * k.weight / total)

    for c in rubric.criteria:
        walk(c, c.weight)
    return out


class PairwiseGrader(Grader):
    """Compares two submissions against a rubric, each comparison asked in both orders.

    Args (beyond :class:`Grader`'s judge, ensemble, prompt, retry, error and
    concurrency arguments):
        mode: ``"per-criterion"`` (one comparison per leaf criterion) or
            ``"holistic"`` (one comparison against the whole rubric).
        repeats: ask each comparison this many times in each order; the most common
            answer counts and each order records its flip rate (see ``_repeats``).
        repeat_temperature, repeat_variation: as for :class:`CriterionGrader`.
        verdict_method: the reply layout (``auto``: the judge's own preference).
        seed: mixed into the seeds of sampled repeats.

    Use :meth:`compare` (or :meth:`compare_sync`); :meth:`grade` is not for pairs.
    """

    kind = "pairwise"
    default_system_prompt = SYSTEM_PAIRWISE

    def __init__(
        self,
        judge: Any = None,
        *,
        mode: str = "per-criterion",
        repeats: int = 1,
        repeat_temperature: float = 0.7,
        repeat_variation: RepeatVariation = "auto",
        verdict_method: VerdictMethodChoice = "auto",
        seed: int = 0,
        **options: Any,
    ) -> None:
        super().__init__(judge, **options)
        if mode not in PAIRWISE_MODES:
            raise ConfigError(f"mode {mode!r} is not one of: {', '.join(PAIRWISE_MODES)}")
        self.mode = mode
        self.verdict_method = check_choice("verdict_method", verdict_method, VERDICT_METHOD_CHOICES)
        self.repeats = Repeats.build(repeats, repeat_temperature, repeat_variation)
        self.seed = seed

    # -- what is asked ---------------------------------------------------------
    def method_of(self, member: Member) -> VerdictMethod:
        """The reply layout asked of ``member``'s judge (resolving ``auto``)."""
        if self.verdict_method != "auto":
            return self.verdict_method
        preferred = getattr(member.judge, "preferred_verdict_method", None)
        return cast(VerdictMethod, preferred if preferred in VERDICT_METHODS else "reason-first")

    def compared(self, rubric: Rubric) -> list[tuple[str, str, float, Criterion | None]]:
        """(key, requirement, weight, criterion or None for the whole rubric) to compare.

        Raises:
            ConfigError: a criterion decided without a judge (a function, a schema).
        """
        if self.mode == "holistic":
            return [("holistic", "the whole rubric", 1.0, None)]
        out: list[tuple[str, str, float, Criterion | None]] = []
        for i, (c, weight) in enumerate(weighted_leaves(rubric)):
            key = c.key or f"#{i}"
            if c.method is not ScoringType.LLM:
                raise ConfigError(
                    f"criterion {key!r} is scored by {c.method.value}, which grades one "
                    "submission at a time; pairwise grading compares with a judge. Grade each "
                    "submission instead, or use --grader holistic"
                )
            out.append((key, c.requirement, weight, c))
        return out

    def request(
        self,
        rubric: Rubric,
        prefix: PairPrefix,
        criterion: Criterion | None,
        member: Member,
        repeat: int,
        tags: dict[str, Any],
    ) -> tuple[JudgeRequest, Variation | None]:
        """The request of one ask, varied for repeat ``repeat`` (and the variation used)."""
        method = self.method_of(member)
        variation: Variation | None = None
        shown = PAIRWISE_ANSWERS
        if self.repeats.n > 1:
            variation = self.repeats.variation_for(member)
            perm = permutation(len(shown), repeat) if variation == "order" else None
            if perm is not None:
                shown = tuple(PAIRWISE_ANSWERS[i] for i in perm)
        if criterion is None:
            part = pairwise_holistic_prompt(rubric, method=method, shown=shown)
        else:
            part = pairwise_criterion_prompt(criterion, method=method, shown=shown)
        req = JudgeRequest(
            system=self.system_prompt,
            user=prefix.text + part,
            schema=pairwise_schema(method, shown),
            schema_name="pairwise_judgment",
            shared_prefix_chars=len(prefix.text),
            decision=pairwise_decision(),
            tags=tags,
        )
        if variation == "temperature":
            req = self.repeats.sampled(req, self.seed + repeat)
        return req, variation

    # -- asking -------------------------------------------------------------------
    async def _ask(self, member: Member, request: JudgeRequest) -> Asked:
        out = Outcome(judge_id=member.id, weight=member.weight)
        response = await call(member, request, limiter=self.limiter(), outcome=out)
        if response is None:
            return Asked(out)
        try:
            position = read_position(response.data)
        except JudgeError as e:
            out.error = e
            return Asked(out)
        reason = response.data.get("reason", "")
        out.reason = "" if reason is None else str(reason)
        probs = response.probabilities
        known = {k: float(probs.get(k, 0.0)) for k in PAIRWISE_ANSWERS} if probs else None
        total = sum(known.values()) if known else 0.0
        return Asked(
            out, position, {k: v / total for k, v in known.items()} if known and total > 0 else None
        )

    async def compare(
        self,
        rubric: Rubric | list[Criterion],
        a: Any,
        b: Any,
        *,
        query: str | None = None,
        reference_submission: str | None = None,
        item_id: str | None = None,
        label: str | None = None,
    ) -> PairwiseReport:
        """Compare submissions ``a`` and ``b`` (text or ``{"thinking", "output"}``).

        ``label`` is a human preference (``a``, ``b`` or ``tie``) kept in the report.

        Raises:
            ConfigError: a bad rubric, submission or label.
            JudgeError: a judge failed and ``on_error="raise"``.
        """
        r = _as_rubric(rubric)
        sa = to_submission(a, where="submission_a")
        sb = to_submission(b, where="submission_b")
        if sa.media or sb.media:  # the judge would compare placeholders it cannot see
            raise ConfigError(
                "pairwise comparison does not send images or documents to the judge yet; "
                "grade each submission with the per-criterion grader"
            )
        if label is not None and label not in _LABELS:
            raise ConfigError(f"label {label!r} is not 'a', 'b' or 'tie'")
        items = self.compared(r)
        members = self.members()
        prefixes = self._prefixes(r, sa, sb, query, reference_submission)
        n = self.repeats.n
        jobs: list[Any] = []
        for first, prefix in prefixes:
            for i, (key, _, _, c) in enumerate(items):
                tags = {"criterion": i, "key": key, "item": item_id, "first": first}
                for m in members:
                    for k in range(n):
                        req, _ = self.request(r, prefix, c, m, k, tags)
                        jobs.append(self._ask(m, req))
        asked: list[Asked] = await gather_all(jobs)
        return self._report(r, items, members, asked, item_id, label)

    def _prefixes(
        self, r: Rubric, sa: Submission, sb: Submission, query: str | None, reference: str | None
    ) -> list[tuple[Side, PairPrefix]]:
        g = r.guidelines
        return [
            ("a", build_pair_prefix(sa, sb, query=query, reference=reference, guidelines=g)),
            ("b", build_pair_prefix(sb, sa, query=query, reference=reference, guidelines=g)),
        ]

    def _report(
        self,
        r: Rubric,
        items: Sequence[tuple[str, str, float, Criterion | None]],
        members: Sequence[Member],
        asked: Sequence[Asked],
        item_id: str | None,
        label: str | None,
    ) -> PairwiseReport:
        n, nm = self.repeats.n, len(members)
        prefs: list[CriterionPreference] = []
        for i, (key, requirement, weight, _) in enumerate(items):
            orders = []
            for o, first in enumerate(_ORDERS):
                start = (o * len(items) + i) * nm * n
                answers = []
                for j, m in enumerate(members):
                    chunk = asked[start + j * n : start + (j + 1) * n]
                    variation = self.repeats.variation_for(m) if n > 1 else None
                    answers.append(
                        member_answer(chunk, first, weight < 0, variation, self.repeats.temperature)
                    )
                orders.append(order_answer(answers, first, weight < 0))
            prefs.append(criterion_preference(key, requirement, weight, orders))
        outs = [a.outcome for a in asked]
        errors = [o.error for o in outs if o.error is not None]
        if errors and self.failure.on_error == "raise":
            raise errors[0]
        score = score_of(prefs)
        preferred: Preference | None = None
        if score is not None:
            preferred = "a" if score > 0 else "b" if score < 0 else "tie"
        compared = [p for p in prefs if p.preferred is not None]
        costs = [o.cost for o in outs]
        failed = [p for p in prefs if p.error is not None]
        return PairwiseReport(
            id=item_id,
            preferred=preferred,
            score=score,
            position_consistent=all(p.position_consistent for p in compared) if compared else None,
            mode=self.mode,
            criteria=prefs,
            label=cast(Preference, label) if label is not None else None,
            error=f"no criterion could be compared: {failed[0].error}" if not compared else None,
            error_count=len(failed),
            judge_calls=sum(o.calls for o in outs),
            cached_calls=sum(1 for o in outs if o.cached),
            token_usage=TokenUsage.total([o.usage for o in outs]),
            completion_cost=None if any(c is None for c in costs) else sum(c or 0.0 for c in costs),
            metadata={**self._metadata(), "mode": self.mode, "repeats": n},
        )

    def compare_sync(
        self,
        rubric: Rubric | list[Criterion],
        a: Any,
        b: Any,
        *,
        query: str | None = None,
        reference_submission: str | None = None,
        item_id: str | None = None,
        label: str | None = None,
    ) -> PairwiseReport:
        """Blocking :meth:`compare`."""
        return run_sync(
            self.compare(
                rubric,
                a,
                b,
                query=query,
                reference_submission=reference_submission,
                item_id=item_id,
                label=label,
            )
        )

    def plan_pair(
        self, rubric: Rubric | list[Criterion], a: Any, b: Any, *, query: str | None = None
    ) -> GradePlan:
        """Judge calls and approximate prompt tokens a comparison would take; calls nothing."""
        r = _as_rubric(rubric)
        items = self.compared(r)
        member = self.members()[0]
        calls = tokens = 0
        for _, prefix in self._prefixes(r, to_submission(a), to_submission(b), query, None):
            for key, _, _, c in items:
                req, _ = self.request(r, prefix, c, member, 0, {"key": key})
                per = approx_tokens(req.system) + approx_tokens(req.user)
                calls += self.n_judges * self.repeats.n
                tokens += self.n_judges * self.repeats.n * per
        return GradePlan(calls, tokens)

    # -- not for one submission --------------------------------------------------
    async def _grade(self, ctx: GradeContext) -> EvaluationReport:
        raise ConfigError(
            "PairwiseGrader compares two submissions: call compare(rubric, a, b) "
            "(on the command line, grade --pairwise)"
        )

    def _plan(self, ctx: GradeContext) -> GradePlan:
        return self.plan_pair(ctx.rubric, ctx.submission, ctx.submission, query=ctx.query)
