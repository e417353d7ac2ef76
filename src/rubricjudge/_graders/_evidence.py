"""Evidence checks: a MET must be backed by words that are really in the submission.

When a judge says a penalty's fault is present (and, with ``evidence="all"``,
when it says any criterion is met), the grader asks the same judge, in a second
short call that reuses the prompt's shared prefix, to copy the words of the
submission that show it. The quote is then looked up in the submission:

* both are normalised the same way: NFKC (full-width ``ＩＤＩＯＴ`` is ``IDIOT``),
  zero-width and other format characters (Unicode category Cf) removed, case
  folded, then cut into words (runs of letters and digits; punctuation and spacing
  do not count);
* ``similarity`` compares words, not characters: 1.0 when the quote's words occur
  in the submission in a row; otherwise one minus the share of word edits
  (insertions and deletions) between the quote and the best run of as many words
  of the submission (one changed word in a ten-word quote: 0.9). A quote with a
  word the submission does not have there ("not an idiot" where it says "an
  idiot") loses that word's share, and a quote longer than the whole submission
  is compared with all of it, so quoting around a short submission is no match.
  A word spelt a little differently (``colour``/``color``; 4 letters or more, same
  first letter, 80% alike) counts as the same word;
* the quote is ``found`` when ``similarity >= EVIDENCE_THRESHOLD`` (0.85). An
  empty quote, or a failed quote call, is not found;
* a quote that would credit a requirement (``evidence="all"``, a positive weight)
  needs at least ``MIN_CREDIT_QUOTE_WORDS`` (3) words, or the whole submission
  when it is shorter: one common word is found in almost any text. A penalty's
  quote has no minimum: the check can only take a penalty away, and a fault that
  is one word ("ＩＤＩＯＴ" on a line of its own) is quoted as one word.

Policy (``evidence_policy``): ``downgrade`` (the default) turns a MET without
evidence into UNMET — a fault no words show is not charged, a requirement no
words show is not credited; ``cannot_assess`` makes it CANNOT_ASSESS; ``record``
only records the check. The check is kept on the report (``evidence_check``),
with the verdict the judge gave before it. A submission with images or documents is
not checked (what they show has no words to quote): the check is recorded as
``unchecked`` and the verdict stands.
"""

from __future__ import annotations

import re
import unicodedata
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
    "MIN_CREDIT_QUOTE_WORDS",
    "EvidenceMode",
    "EvidencePolicy",
    "check_quote",
    "needs_evidence",
    "quote_prompt",
    "quote_schema",
]

EVIDENCE_THRESHOLD = 0.85
MIN_CREDIT_QUOTE_WORDS = 3
EvidenceMode = Literal["penalties", "all", "off"]
EvidencePolicy = Literal["downgrade", "cannot_assess", "record"]
EVIDENCE_POLICIES: tuple[EvidencePolicy, ...] = ("downgrade", "cannot_assess", "record")
QUOTE_MAX_CHARS = 300

_WORD = re.compile(r"\w+")
_BASE = 0x20000  # words become characters from here on (no surrogates above it)
_PAD = chr(_BASE - 1)  # a word no text has


def normalise(text: str) -> str:
    """``text`` in NFKC, without format characters (zero-width spaces...), case-folded."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFKC", text.casefold())


def words(text: str) -> list[str]:
    """The words of ``text`` once normalised."""
    return _WORD.findall(normalise(text))


def _encode(tokens: list[str], vocab: dict[str, str]) -> str:
    """One character per word, the same character for the same word."""
    room = 0x10FFFF - _BASE
    return "".join(vocab.setdefault(w, chr(_BASE + len(vocab) % room)) for w in tokens)


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


def _respelt(quote: list[str], vocab: dict[str, str]) -> list[str]:
    """The quote's words, each the submission's when it is only spelt a little differently.

    ``colour`` for ``color``, ``idoit`` for ``idiot``: words of 4 letters or more, same
    first letter, at least 80% alike. Short words never: ``not`` is not ``now``.
    """
    from rapidfuzz import fuzz, process

    out = []
    for w in quote:
        if w not in vocab and len(w) >= 4:
            near = [v for v in vocab if v[0] == w[0] and len(v) >= 4]
            got = process.extractOne(w, near, scorer=fuzz.ratio, score_cutoff=80)
            if got is not None:
                w = got[0]
        out.append(w)
    return out


def similarity(quote: str, submission: str) -> float:
    """How well the words of ``quote`` match a run of words of ``submission`` (1.0: in full)."""
    qw, sw = words(quote), words(submission)
    if not qw or not sw:
        return 0.0
    vocab: dict[str, str] = {}
    s = _encode(sw, vocab)
    q = _encode(_respelt(qw, vocab), vocab)
    if q in s:
        return 1.0
    from rapidfuzz import fuzz

    if len(q) > len(s):  # more words than the submission has: compare with all of it
        return float(fuzz.ratio(q, s)) / 100.0
    # partial_ratio also tries runs cut short by either end of the text, where a quote
    # word past the end would cost half a changed one; words that match nothing pad it
    pad = _PAD * len(q)
    return float(fuzz.partial_ratio(q, pad + s + pad)) / 100.0


def check_quote(
    quote: str | None,
    submission: str,
    *,
    policy: str,
    verdict: CriterionVerdict,
    threshold: float = EVIDENCE_THRESHOLD,
    credit: bool = False,
) -> tuple[CriterionVerdict, EvidenceCheck]:
    """The verdict after the check, and the check's record.

    A quote with no word in it (``"..."``, ``""``) is not evidence; with ``credit``
    (the quote would credit a requirement), neither is one of fewer than
    ``MIN_CREDIT_QUOTE_WORDS`` words, unless the submission has fewer.
    """
    text = quote or ""
    score = similarity(text, submission)
    if credit and score > 0.0:
        need = min(MIN_CREDIT_QUOTE_WORDS, len(words(submission)))
        if len(words(text)) < need:
            score = 0.0
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
    if prefix.media:  # what an image shows has no words to quote: the verdict stands
        assert out.verdict is not None
        out.evidence = EvidenceCheck(
            quote="",
            found=False,
            similarity=0.0,
            threshold=EVIDENCE_THRESHOLD,
            action="unchecked (the submission holds images or documents, which cannot be quoted)",
            raw_verdict=out.verdict,
        )
        return
    req = JudgeRequest(
        system=system,
        user=prefix.text + quote_prompt(criterion),
        schema=quote_schema(),
        schema_name="evidence_quote",
        shared_prefix_chars=len(prefix.text),
        media=prefix.media,
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
        quote if isinstance(quote, str) else None,
        text,
        policy=policy,
        verdict=out.verdict,
        credit=criterion.weight >= 0,
    )
