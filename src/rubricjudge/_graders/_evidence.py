"""Evidence checks: a MET must be backed by words that are really in the submission.

When a judge says a penalty's fault is present (and, with ``evidence="all"``,
when it says any criterion is met), the grader asks the same judge, in a second
short call that reuses the prompt's shared prefix, to copy the words of the
submission that show it. The quote is then looked up in the submission:

* both are normalised: case folded, quotes and punctuation at the ends dropped,
  every run of whitespace made one space;
* ``similarity`` is the best partial match of the quote anywhere in the
  submission (rapidfuzz's ``partial_ratio`` / 100: 1.0 is a verbatim match, a
  changed word in a ten-word quote scores about 0.9);
* the quote is ``found`` when ``similarity >= EVIDENCE_THRESHOLD`` (0.85). An
  empty quote, or a failed quote call, is not found.

Policy (``evidence_policy``): ``downgrade`` (the default) turns a MET without
evidence into UNMET — a fault no words show is not charged, a requirement no
words show is not credited; ``cannot_assess`` makes it CANNOT_ASSESS; ``record``
only records the check. The check is kept on the report (``evidence_check``),
with the verdict the judge gave before it.
"""

from __future__ import annotations

import re
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Literal

from .._judges._base import JudgeRequest
from .._model._reports import EvidenceCheck, TokenUsage
from .._model._rubric import Criterion, CriterionVerdict
from ._judging import Member, Outcome, call

if TYPE_CHECKING:
    from ._base import GradeContext
    from ._prompts import Prefix

__all__ = [
    "EVIDENCE_POLICIES",
    "check_evidence",
    "EVIDENCE_THRESHOLD",
    "EvidenceMode",
    "EvidencePolicy",
    "check_quote",
    "needs_evidence",
    "quote_prompt",
    "quote_schema",
]

EVIDENCE_THRESHOLD = 0.85
EvidenceMode = Literal["penalties", "all", "off"]
EvidencePolicy = Literal["downgrade", "cannot_assess", "record"]
EVIDENCE_POLICIES: tuple[EvidencePolicy, ...] = ("downgrade", "cannot_assess", "record")
QUOTE_MAX_CHARS = 300

_EDGES = "\"'`“”‘’«».,;:!?()[]{}- \t\n"


def normalise(text: str) -> str:
    """Case-folded text with single spaces and no quotes or punctuation at its ends."""
    return " ".join(text.casefold().split()).strip(_EDGES)


def needs_evidence(criterion: Criterion, verdict: CriterionVerdict | None, mode: str) -> bool:
    """Whether a ``verdict`` on ``criterion`` must be backed by a quote under ``mode``."""
    if mode == "off" or verdict is not CriterionVerdict.MET or criterion.is_multi_choice:
        return False
    return mode == "all" or criterion.weight < 0


def quote_prompt(criterion: Criterion) -> str:
    """The part of the quote request after the submission prefix."""
    req = " ".join(criterion.requirement.split())
    if criterion.weight < 0:
        what = f"Fault: {req}\nYou found that the submission commits this fault."
        which = "the words of the submission that commit it"
    else:
        what = f"Criterion: {req}\nYou found that the submission meets this criterion."
        which = "the words of the submission that meet it"
    return (
        f"{what} Copy {which}, exactly as they are written there (at most 30 words). If no "
        'words of the submission do, reply with an empty quote.\nReply {"quote": "<the exact '
        'words>"}'
    )


def quote_schema() -> dict[str, Any]:
    """JSON Schema of a quote reply."""
    return {
        "type": "object",
        "properties": {"quote": {"type": "string", "maxLength": QUOTE_MAX_CHARS}},
        "required": ["quote"],
        "additionalProperties": False,
    }


def similarity(quote: str, submission: str) -> float:
    """How well ``quote`` matches somewhere in ``submission`` (1.0: verbatim), normalised."""
    q, s = normalise(quote), normalise(submission)
    if not q:
        return 0.0
    if q in s:
        return 1.0
    from rapidfuzz import fuzz

    return float(fuzz.partial_ratio(q, s)) / 100.0


_WORD = re.compile(r"\w+")


def check_quote(
    quote: str | None,
    submission: str,
    *,
    policy: str,
    verdict: CriterionVerdict,
    threshold: float = EVIDENCE_THRESHOLD,
) -> tuple[CriterionVerdict, EvidenceCheck]:
    """The verdict after the check, and the check's record.

    A quote with no word in it (``"..."``, ``""``) is not evidence.
    """
    text = quote or ""
    score = similarity(text, submission) if _WORD.search(text) else 0.0
    found = score >= threshold
    after = verdict
    action = "kept"
    if not found and policy == "downgrade":
        after, action = CriterionVerdict.UNMET, "downgraded"
    elif not found and policy == "cannot_assess":
        after, action = CriterionVerdict.CANNOT_ASSESS, "cannot_assess"
    check = EvidenceCheck(
        quote=text,
        found=found,
        similarity=round(score, 4),
        threshold=threshold,
        action=action,
        raw_verdict=verdict,
    )
    return after, check


async def check_evidence(
    out: Outcome,
    ctx: GradeContext,
    prefix: Prefix,
    criterion: Criterion,
    member: Member,
    system: str,
    limiter: AbstractAsyncContextManager[Any] | None,
    policy: str,
) -> None:
    """Ask ``member`` to quote the submission for ``out``'s MET and check the quote.

    The call's usage and cost are added to ``out``. A failed quote call keeps the
    verdict and records the check as ``unchecked``: a judge failure never decides a
    verdict.
    """
    req = JudgeRequest(
        system=system,
        user=prefix.text + quote_prompt(criterion),
        schema=quote_schema(),
        schema_name="evidence_quote",
        shared_prefix_chars=len(prefix.text),
        tags={"key": criterion.key, "item": ctx.item_id, "evidence": True},
    )
    extra = Outcome(judge_id=member.id)
    response = await call(member, req, limiter=limiter, outcome=extra)
    out.calls += 1
    out.usage = TokenUsage.total([out.usage, extra.usage])
    out.cost = None if out.cost is None or extra.cost is None else out.cost + extra.cost
    assert out.verdict is not None
    if response is None:
        out.evidence = EvidenceCheck(
            quote="",
            found=False,
            similarity=0.0,
            threshold=EVIDENCE_THRESHOLD,
            action=f"unchecked ({extra.error})",
            raw_verdict=out.verdict,
        )
        return
    quote = response.data.get("quote") if isinstance(response.data, dict) else None
    text = ctx.submission.output
    if ctx.submission.thinking:
        text = ctx.submission.thinking + "\n" + text
    if ctx.submission.conversation is not None:  # the quote is of what the judge was shown
        text = prefix.submission_text
    out.verdict, out.evidence = check_quote(
        quote if isinstance(quote, str) else None, text, policy=policy, verdict=out.verdict
    )
