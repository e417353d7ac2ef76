"""A judge cascade: re-ask a stronger judge only where a cheap one was unsure.

With ``escalate_to=SPEC`` and ``below_confidence=P`` a criterion whose first
answer has a confidence below ``P`` (or whose first judge failed) is asked again,
with the same prompt, of the stronger judge. The stronger judge's answer counts
unless it fails, in which case the first answer stands; the report's
``escalation`` keeps both answers and says which one counted. A first judge that
reports no confidence (no token probabilities) is escalated only when it fails.
"""

from __future__ import annotations

from .._model._reports import Escalation, TokenUsage
from .._model._rubric import Criterion
from ._judging import Outcome

__all__ = ["merge_escalation", "should_escalate"]


def should_escalate(out: Outcome, below: float) -> bool:
    """Whether ``out`` goes to the stronger judge."""
    if not out.ok:
        return True
    confidence = out.confidence
    return confidence is not None and confidence < below


def merge_escalation(
    criterion: Criterion, first: Outcome, second: Outcome, below: float
) -> Outcome:
    """The outcome that counts, carrying the record of both and their summed cost."""
    counted = second if second.ok else first
    counted.escalation = Escalation(
        below_confidence=below,
        first=first.vote(criterion),
        second=second.vote(criterion),
        counted="second" if second.ok else "first",
    )
    other = first if counted is second else second
    counted.calls += other.calls
    counted.usage = TokenUsage.total([first.usage, second.usage])
    counted.cost = None if first.cost is None or second.cost is None else first.cost + second.cost
    return counted
