"""Reasons for the verdicts that cost points, when the judge gave only a verdict.

With ``verdict-only`` (the local judge's default: fastest, and its best layout for
agreement) the judge writes no reason. So that a user can still see why an answer
lost points, the grader asks the same judge one more short question for each
criterion that costs points — a requirement judged UNMET, a penalty judged MET —
after the verdict is final (calibrated and evidence-checked): the verdict is stated,
and the judge is asked for one sentence on what in the submission decides it. The
call reuses the prompt's shared prefix (the local judge's KV cache holds it from the
decision), is bounded to one short sentence (``REASON_CALL_CHARS`` in the schema, so a
grammar-constrained judge must close it, and ``REASON_TOKENS``), and never changes the
verdict; a failed call leaves the reason empty and records why in the report's
``llm_invocation``. The bounds keep a reason near the cost of a decision on the local
judge (issue 33: 12.3 s a reason beside 1.7 s a decision with 96 tokens and 300
characters; see docs/trust.md for the figures with these bounds).
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

from .._judges._base import JudgeRequest
from .._model._reports import TokenUsage
from .._model._rubric import Criterion, CriterionVerdict
from ._judging import Member, Outcome, call
from ._prompts import REASON_MAX_CHARS
from ._question import Question

__all__ = [
    "REASON_CALL_CHARS",
    "REASON_TOKENS",
    "explain",
    "needs_reason",
    "reason_prompt",
    "reason_schema",
]

REASON_CALL_CHARS = 80
"""The longest reason this call may write, in characters (one short sentence)."""
REASON_TOKENS = 28
"""... and in tokens: room for 80 characters and the JSON around them."""


def needs_reason(criterion: Criterion, out: Outcome) -> bool:
    """Whether ``out`` costs points and came without a reason.

    That is a binary requirement judged UNMET or a penalty judged MET.
    """
    if not out.ok or out.reason or criterion.is_multi_choice or criterion.scale is not None:
        return False
    if criterion.weight > 0:
        return out.verdict == CriterionVerdict.UNMET
    if criterion.weight < 0:
        return out.verdict == CriterionVerdict.MET
    return False


def reason_prompt(criterion: Criterion, verdict: CriterionVerdict) -> str:
    """The question placed after the shared prefix: why the verdict holds."""
    req = " ".join(criterion.requirement.split())
    held = "true" if verdict == CriterionVerdict.MET else "not true"
    return (
        f"Statement about the submission: {req}\n"
        f"The grader decided that this statement is {held} of the submission. In one short "
        "sentence (at most 12 words), say what in the submission shows it: quote its words "
        "where you can, or name what is missing.\n"
        'Reply {"reason": "<one sentence>"}'
    )


def reason_schema() -> dict[str, Any]:
    """The reply schema: one bounded string."""
    return {
        "type": "object",
        "properties": {"reason": {"type": "string", "maxLength": REASON_CALL_CHARS}},
        "required": ["reason"],
        "additionalProperties": False,
    }


async def explain(
    out: Outcome,
    question: Question,
    member: Member,
    system: str,
    limiter: AbstractAsyncContextManager[Any] | None,
) -> None:
    """Ask ``member`` why ``out``'s verdict on ``question`` holds; keep the answer as its reason."""
    ctx, prefix, criterion = question.ctx, question.prefix, question.criterion
    assert out.verdict is not None
    req = JudgeRequest(
        system=system,
        user=prefix.text + reason_prompt(criterion, out.verdict),
        schema=reason_schema(),
        schema_name="verdict_reason",
        shared_prefix_chars=len(prefix.text),
        media=prefix.media,
        max_tokens=REASON_TOKENS,
        tags={"key": criterion.key, "item": ctx.item_id, "reason": True},
    )
    extra = Outcome(judge_id=member.id)
    response = await call(member, req, limiter=limiter, outcome=extra)
    out.calls += 1
    out.usage = TokenUsage.total([out.usage, extra.usage])
    out.cost = None if out.cost is None or extra.cost is None else out.cost + extra.cost
    reason = response.data.get("reason") if response is not None else None
    if isinstance(reason, str) and reason.strip():
        out.reason = _whole_words(" ".join(reason.split())[:REASON_MAX_CHARS])
    else:
        why = str(extra.error) if extra.error is not None else "the judge gave no reason"
        out.info = {**out.info, "reason_error": why}


def _whole_words(reason: str) -> str:
    """A reason cut at a bound (this call's or the report's), back to its last whole word.

    A grammar-constrained judge stops at exactly ``REASON_CALL_CHARS`` characters, often
    mid-word ("... the cause of the sky's bl"); the cut is marked with an ellipsis.
    """
    if len(reason) not in (REASON_CALL_CHARS, REASON_MAX_CHARS) or reason.endswith((".", "!", "?")):
        return reason
    head, _, _ = reason.rpartition(" ")
    return (head or reason).rstrip(",;:") + " …"
