"""One-shot grading: every criterion in one judge call, re-asking only what went wrong.

The reply is an object keyed by criterion number, each value checked like a
per-criterion reply. Criteria the reply leaves out or garbles are asked again one
by one through the per-criterion path; when the whole reply is unusable (a parse
failure) every criterion is asked again that way. Other failures of the one call
(timeouts, rate limits, ...) go to the failure policy for every criterion.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._aio import gather_all
from .._errors import ConfigError, JudgeError
from .._judges._base import JudgeRequest
from .._model._reports import EvaluationReport
from .._model._rubric import Criterion, ScoringType
from ._base import GradeContext, GradePlan
from ._criterion import CriterionGrader
from ._judging import Member, Outcome, call, read_into
from ._oneshot_prompts import oneshot_prompt, oneshot_schema
from ._prompts import SYSTEM_CRITERION, SYSTEM_ONESHOT, Prefix, approx_tokens
from ._question import Leaf, Question
from ._scoped import is_scoped
from ._shown import shared_prefix, with_conversation_record

__all__ = ["PerCriterionOneShotGrader"]

Numbered = list[tuple[int, Criterion, list[int] | None]]


def _entries(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """Key replies by number; also accept the ``rubric`` seed's ``criteria_evaluations``."""
    listed = data.get("criteria_evaluations")
    if isinstance(listed, list):
        out: dict[str, Any] = {}
        for e in listed:
            if isinstance(e, Mapping) and "criterion_number" in e:
                out[str(e["criterion_number"])] = e
        return out
    return data


class PerCriterionOneShotGrader(CriterionGrader):
    """Grades all criteria in one judge call (per judge), with a structured reply."""

    kind = "one-shot"
    default_system_prompt = SYSTEM_ONESHOT

    def __init__(self, judge: Any = None, *, reasons: bool = False, **options: Any) -> None:
        if options.get("repeats", 1) != 1:
            raise ConfigError(
                "repeats work with the per-criterion grader (CriterionGrader), not one-shot"
            )
        # one call for all criteria: no extra call per failed criterion unless asked
        super().__init__(judge, reasons=reasons, **options)

    def criterion_system_prompt(self) -> str:
        """Return the per-criterion system prompt, used when a criterion is re-asked."""
        return SYSTEM_CRITERION

    def _numbered(self, ctx: GradeContext, member_id: str) -> Numbered:
        out: Numbered = []
        for i, leaf in enumerate(ctx.rubric.leaves()):
            c = self.effective(leaf)
            # a criterion scoped to part of a conversation is asked on its own (``leaf``)
            if c.method is ScoringType.LLM and not is_scoped(ctx, c):
                out.append((i + 1, c, self.order(ctx, c, i, member_id)))
        return out

    def _request(self, ctx: GradeContext, prefix: Prefix, numbered: Numbered) -> JudgeRequest:
        return JudgeRequest(
            system=self.system_prompt,
            user=prefix.text + oneshot_prompt(numbered, ctx.example_labels),
            schema=oneshot_schema(numbered),
            schema_name="rubric_judgment",
            shared_prefix_chars=len(prefix.text),
            media=prefix.media,
            tags={"criterion": "all", "item": ctx.item_id},
        )

    async def _member(
        self, ctx: GradeContext, prefix: Prefix, member: Member
    ) -> dict[int, Outcome]:
        """One member's outcomes by leaf index.

        The one call is counted (calls, usage, cost) on the first criterion's outcome.
        """
        numbered = self._numbered(ctx, member.id)
        if not numbered:
            return {}
        probe = Outcome(judge_id=member.id, weight=member.weight)
        response = await call(
            member, self._request(ctx, prefix, numbered), limiter=self.limiter(), outcome=probe
        )
        got: dict[int, Outcome] = {}
        if response is None and probe.error is not None and probe.error.category != "parse":
            for n, _, _ in numbered:
                got[n - 1] = Outcome(
                    judge_id=member.id, weight=member.weight, error=probe.error, calls=0
                )
        else:
            entries = _entries(response.data) if response is not None else {}
            redo: list[tuple[int, Criterion]] = []
            for n, c, order in numbered:
                o = Outcome(
                    judge_id=member.id, weight=member.weight, shuffle_order=order, calls=0, cost=0.0
                )
                try:
                    read_into(o, c, entries.get(str(n)), order)
                except JudgeError:
                    redo.append((n - 1, c))
                    continue
                o.reasoning, o.info = probe.reasoning, probe.info
                got[n - 1] = o
            asks = [self.ask_one(Question(ctx, prefix, i, c), member) for i, c in redo]
            redone = await gather_all(asks)
            got.update({i: o for (i, _), o in zip(redo, redone, strict=True)})
        first = got[numbered[0][0] - 1]
        first.calls += 1
        first.cached = first.cached or probe.cached
        first.usage = _add(first.usage, probe.usage)
        first.cost = None if first.cost is None or probe.cost is None else first.cost + probe.cost
        return got

    async def _grade(self, ctx: GradeContext) -> EvaluationReport:
        leaves_in = [self.effective(c) for c in ctx.rubric.leaves()]
        for i, c in enumerate(leaves_in):
            self.method_for(c, i)
        self.check_methods(leaves_in)
        prefix = shared_prefix(self.prefix, ctx)
        members = self.members()
        per_member: list[dict[int, Outcome]] = []
        if not isinstance(prefix, JudgeError):
            per_member = await gather_all([self._member(ctx, prefix, m) for m in members])

        async def leaf(i: int, c: Criterion) -> Leaf:
            if c.method is not ScoringType.LLM or isinstance(prefix, JudgeError):
                return await self.leaf(ctx, prefix, i, c)
            if is_scoped(ctx, c):
                return await self.leaf(ctx, prefix, i, c)
            return self.decide(c, i, [got[i] for got in per_member])

        leaves = await gather_all([leaf(i, c) for i, c in enumerate(leaves_in)])
        return with_conversation_record(self, ctx, await self.finish(ctx, leaves))

    def _plan(self, ctx: GradeContext) -> GradePlan:
        numbered = self._numbered(ctx, "")
        prefix = shared_prefix(self.prefix, ctx)
        if not numbered or isinstance(prefix, JudgeError):
            return GradePlan(0, 0)
        req = self._request(ctx, prefix, numbered)
        per_call = approx_tokens(self.system_prompt) + approx_tokens(req.user)
        return GradePlan(self.n_judges, self.n_judges * per_call)


def _add(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return a + b
