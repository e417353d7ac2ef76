"""Holistic grading: the judge reads the whole rubric and returns one 0-100 score.

As the ``rubric`` package defines it: ``score = clamp(llm / 100)`` (or the raw score
when not normalising), ``raw_score = (llm / 100) * total_positive_weight`` so that
``raw_score`` means a weighted sum as with the other graders, and ``llm_raw_score``
keeps what the judge said. There is no per-criterion report (``report`` is None).
With several judges the score is the weighted mean of the judges that answered.
When every judge failed, ``score`` is None and ``error`` says why (or, with
``on_error="raise"``, the error is raised). Fallback verdicts do not apply.
"""

from __future__ import annotations

import math
from typing import Any

from .._aio import gather_all
from .._errors import JudgeError
from .._judges._base import JudgeRequest
from .._model._reports import EvaluationReport, TokenUsage
from .._model._scoring import on_scale
from ._base import GradeContext, GradePlan, Grader
from ._holistic_prompts import holistic_prompt, holistic_schema
from ._judging import Member, Outcome, call
from ._prompts import SYSTEM_HOLISTIC, approx_tokens, item_prefix
from ._shown import conversation_record, with_conversation_record

__all__ = ["RubricAsJudgeGrader"]


def read_score(data: Any) -> float:
    """Read the 0-100 score of a holistic reply (``score`` or the seed's ``overall_score``).

    Raises:
        JudgeError: category ``parse`` when there is no finite number.
    """
    raw = None
    if isinstance(data, dict):
        raw = data.get("score", data.get("overall_score"))
    try:
        value = float(raw) if raw is not None and not isinstance(raw, bool) else math.nan
    except (TypeError, ValueError):
        value = math.nan
    if not math.isfinite(value):
        raise JudgeError(f"score {raw!r} is not a number", category="parse", raw_text=repr(data))
    return value


class RubricAsJudgeGrader(Grader):
    """Asks the judge for one holistic 0-100 score of the submission against the rubric."""

    kind = "holistic"
    default_system_prompt = SYSTEM_HOLISTIC

    def _request(self, ctx: GradeContext) -> JudgeRequest:
        """The one request; raises JudgeError ``over_budget`` for a conversation past it."""
        conversation = ctx.submission.conversation is not None
        rendered = self.render(ctx).text if conversation else None
        prefix = item_prefix(ctx, rendered, examples=False)
        return JudgeRequest(
            system=self.system_prompt,
            user=prefix.text + holistic_prompt(ctx.rubric),
            schema=holistic_schema(),
            schema_name="holistic_score",
            shared_prefix_chars=len(prefix.text),
            media=prefix.media,
            tags={"criterion": "holistic", "item": ctx.item_id},
        )

    async def _one(self, member: Member, request: JudgeRequest) -> tuple[Outcome, float | None]:
        out = Outcome(judge_id=member.id, weight=member.weight)
        response = await call(member, request, limiter=self.limiter(), outcome=out)
        if response is None:
            return out, None
        try:
            value = read_score(response.data)
        except JudgeError as e:
            out.error = e
            return out, None
        reason = response.data.get("reason", response.data.get("explanation", ""))
        out.reason = "" if reason is None else str(reason)
        return out, value

    async def _grade(self, ctx: GradeContext) -> EvaluationReport:
        try:
            request = self._request(ctx)
        except JudgeError as e:
            if e.category != "over_budget" or self.failure.on_error == "raise":
                raise
            report = EvaluationReport(
                score=None, error=f"no score: {e}", error_count=1, metadata=self._metadata()
            )
            return with_conversation_record(self, ctx, report)
        results = await gather_all([self._one(m, request) for m in self.members()])
        outs = [o for o, _ in results]
        usage = TokenUsage.total([o.usage for o in outs])
        costs = [o.cost for o in outs]
        cost = None if any(c is None for c in costs) else float(sum(c or 0.0 for c in costs))
        fields: dict[str, Any] = {
            "token_usage": usage,
            "completion_cost": cost,
            "judge_calls": len(outs),
            "cached_calls": sum(1 for o in outs if o.cached),
            "metadata": self._metadata(),
        }
        ok = [(o, v) for o, v in results if v is not None]
        errors = [o for o in outs if o.error is not None]
        if not ok:
            first = errors[0].error
            assert first is not None
            if self.failure.on_error == "raise":
                raise first
            return EvaluationReport(
                score=None, error=f"no score: {first}", error_count=len(errors), **fields
            )
        total_w = sum(o.weight for o, _ in ok)
        llm = sum(o.weight * v for o, v in ok) / total_w
        raw = (llm / 100.0) * ctx.rubric.total_positive_weight
        unit = max(0.0, min(1.0, llm / 100.0))
        score = unit if self.normalize else raw
        if len(results) > 1:
            fields["metadata"]["scores"] = {o.judge_id: v for o, v in results}
        fields["metadata"]["reason"] = ok[0][0].reason
        if ctx.submission.conversation is not None:
            fields["metadata"]["conversation"] = conversation_record(self, ctx)
        return EvaluationReport(
            score=score,
            raw_score=raw,
            llm_raw_score=llm,
            report=None,
            error_count=len(errors),
            **on_scale(ctx.rubric.scale, unit),
            passed=unit >= ctx.rubric.pass_threshold
            if ctx.rubric.pass_threshold is not None
            else None,
            **fields,
        )

    def _plan(self, ctx: GradeContext) -> GradePlan:
        try:
            req = self._request(ctx)
        except JudgeError as e:
            if e.category != "over_budget":
                raise
            return GradePlan(0, 0)
        per_call = approx_tokens(self.system_prompt) + approx_tokens(req.user)
        return GradePlan(self.n_judges, self.n_judges * per_call)
