"""Evidence checks: a MET must be backed by words that are really in the submission.

When a judge says a penalty's fault is present (and, with ``evidence="all"``,
when it says any criterion is met), the grader asks the same judge, in a second
short call that reuses the prompt's shared prefix, to copy the words of the
submission that show it. The quote is then looked up in the submission:

* both are normalised the same way and cut into words (see ``_words``). A word
  spelt a little differently (``colour``/``color``, ``ocean``/``oceans``; 4 letters
  or more, same first letter, 80% alike) counts as the same;
* a quote cut with "..." is checked part by part, and every part must be found;
* a part is found by either of two measures. **In a row**: its words occur in the
  submission in a row, up to word edits: 1.0 verbatim, else one minus the share of
  words inserted or deleted against the best run of as many words (one changed word
  in ten: 0.9), at least ``EVIDENCE_THRESHOLD`` (0.85). **Loosely**: its content
  words (not in :data:`STOPWORDS`; negations count) occur in the same order in one
  sentence of the submission, within a window of ``max(n + 5, 1.5 n)`` words for a
  quote of ``n`` words, at least ``COVERAGE_THRESHOLD`` (0.8) of them (all of up to
  four, four of five). The second keeps a true fault a small judge quotes loosely
  (the README demo's "The sky is blue because it reflects the ocean or the sea."
  for "... reflects the colour of the oceans, ...": 0.75 in a row, 0.8 loosely)
  while a quote with words the submission does not say there is still no match;
* a found quote is still no evidence when: it is one word and that word is not a
  clause of its own in the submission ("blue" in "the sky is blue because...": one
  common word is in almost any text; ``ＩＤＩＯＴ`` on its own is); it has a number
  the matched words do not have (1658 for 1648); or it and the words it matched
  disagree on negation: a negation word (:data:`NEGATIONS`) among those words, or
  up to :data:`NEGATION_REACH` (3) words before them in the same clause, that the
  quote does not have ("the sky reflects the ocean" against "the sky does not
  reflect the ocean"), or one in the quote the submission does not have there.
  "no doubt", "not only", "not just", "no wonder" and "or not" are no negation;
* a quote that would credit a requirement (``evidence="all"``, a positive weight)
  needs at least ``MIN_CREDIT_QUOTE_WORDS`` (3) words, or the whole submission
  when it is shorter. An empty quote, or a failed quote call, is not found.

The check records the measure that decided (``similarity`` and its ``threshold``)
and, when the quote is not found, ``why``. Measured in ``benchmarks/evidence_check.py``
(docs/trust.md).

Policy (``evidence_policy``): ``downgrade`` (the default) turns a MET without
evidence into UNMET — a fault no words show is not charged, a requirement no
words show is not credited; ``cannot_assess`` makes it CANNOT_ASSESS; ``record``
only records the check. The check is kept on the report (``evidence_check``),
with the verdict the judge gave before it. A submission with images or documents is
not checked (what they show has no words to quote): the check is recorded as
``unchecked`` and the verdict stands.
"""

from __future__ import annotations

import math
import re
import unicodedata
from contextlib import AbstractAsyncContextManager
from typing import Any, NamedTuple

from .._judges._base import JudgeRequest
from .._model._reports import EvidenceCheck, TokenUsage
from .._model._rubric import Criterion, CriterionVerdict
from ._judging import Member, Outcome, call
from ._options import EvidenceMode, EvidencePolicy
from ._question import Question
from ._words import (
    NEGATIONS,
    NOT_NEGATIONS,
    PAD,
    SENTENCE,
    STOPWORDS,
    encode,
    words,
    words_and_breaks,
)

__all__ = [
    "COVERAGE_THRESHOLD",
    "check_evidence",
    "EVIDENCE_THRESHOLD",
    "MIN_CREDIT_QUOTE_WORDS",
    "NEGATION_REACH",
    "check_quote",
    "needs_evidence",
    "quote_prompt",
    "quote_schema",
]

EVIDENCE_THRESHOLD = 0.85
COVERAGE_THRESHOLD = 0.8
MIN_CREDIT_QUOTE_WORDS = 3
QUOTE_MAX_CHARS = 300

_ELLIPSIS = re.compile(r"\.\.+")
NEGATION_REACH = 3
"""How many words before the quoted ones, in the same clause, a negation turns around."""


def needs_evidence(
    criterion: Criterion, verdict: CriterionVerdict | None, mode: EvidenceMode
) -> bool:
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


class Match(NamedTuple):
    """Where a quote's words are in a submission, and how well they match.

    ``similarity`` is one of the two measures (see the module docstring) and
    ``threshold`` the least it needs; ``start``/``end`` the submission's words
    matched (word indices, end excluded).
    """

    similarity: float
    start: int
    end: int
    threshold: float = EVIDENCE_THRESHOLD

    @property
    def margin(self) -> float:
        """How far above (or, negative, below) its threshold the match is."""
        return self.similarity - self.threshold


def _in_a_row(q: str, s: str) -> Match:
    """The quote's words in a row: 1.0 verbatim, else one minus the share of word edits."""
    if q in s:
        at = s.index(q)
        return Match(1.0, at, at + len(q))
    from rapidfuzz import fuzz

    if len(q) > len(s):  # more words than the submission has: compare with all of it
        return Match(float(fuzz.ratio(q, s)) / 100.0, 0, len(s))
    # partial_ratio also tries runs cut short by either end of the text, where a quote
    # word past the end would cost half a changed one; words that match nothing pad it
    pad = PAD * len(q)
    got = fuzz.partial_ratio_alignment(q, pad + s + pad)
    if got is None:
        return Match(0.0, 0, 0)
    start = min(max(got.dest_start - len(pad), 0), len(s))
    end = min(max(got.dest_end - len(pad), start), len(s))
    return Match(float(got.score) / 100.0, start, end)


def _in_order(content: list[str], window: list[str]) -> int:
    """How many of ``content`` occur in ``window`` in the same order (longest common run)."""
    prev = [0] * (len(window) + 1)
    for c in content:
        row = [0]
        for j, w in enumerate(window):
            row.append(prev[j] + 1 if c == w else max(prev[j + 1], row[j]))
        prev = row
    return prev[-1]


def _coverage(quote: list[str], sub: list[str], breaks: list[int]) -> Match:
    """The share of the quote's content words found, in order, close together.

    Content words are those not in :data:`STOPWORDS` (negations count). They must
    occur in the quote's order, in one sentence of the submission, within
    ``max(n + 5, 1.5 n)`` words for a quote of ``n`` words ("the oceans reflect the
    sky" is not "the sky reflects the oceans"). Fewer than 2 content words give 0.0:
    one word is no paraphrase.
    """
    content = [w for w in quote if w not in STOPWORDS]
    if len(content) < 2:
        return Match(0.0, 0, 0, COVERAGE_THRESHOLD)
    wanted = set(content)
    sentence, at = [], 0
    for b in breaks[: len(sub)]:
        at += b == SENTENCE
        sentence.append(at)
    hits = [(i, w) for i, w in enumerate(sub) if w in wanted]
    width = max(len(quote) + 5, math.ceil(1.5 * len(quote)))
    best = Match(0.0, 0, 0, COVERAGE_THRESHOLD)
    for a, (first, _) in enumerate(hits):
        window = []
        for i, w in hits[a:]:
            if i - first >= width or sentence[i] != sentence[first]:
                break
            window.append((i, w))
        share = _in_order(content, [w for _, w in window]) / len(content)
        if share > best.similarity:
            best = Match(share, first, window[-1][0] + 1, COVERAGE_THRESHOLD)
            if share >= 1.0:
                break
    return best


def _match(quote: list[str], sub: list[str], breaks: list[int]) -> Match:
    """The better (by margin over its threshold) of the two measures of ``quote``."""
    if not quote or not sub:
        return Match(0.0, 0, 0)
    vocab: dict[str, str] = {}
    s = encode(sub, vocab)
    respelt = _respelt(quote, vocab)
    order = _in_a_row(encode(respelt, vocab), s)
    if order.similarity >= 1.0:
        return order
    loose = _coverage(respelt, sub, breaks)
    return loose if loose.margin > order.margin else order


def similarity(quote: str, submission: str) -> float:
    """How well the words of ``quote`` match the words of ``submission`` (1.0: in full)."""
    sw, breaks = words_and_breaks(submission)
    return _match(words(quote), sw, breaks).similarity


def _negation(sub: list[str], breaks: list[int], at: Match) -> str | None:
    """The negation word that turns the matched words around, if any.

    A negation word among the matched words, or among the :data:`NEGATION_REACH`
    words before them in the same clause ("not" in "the sky does not reflect the
    ocean"), unless it starts "no doubt", "not only", "not just" or "no wonder", or
    follows "or" ("whether or not").
    """
    first = at.start
    while first > 0 and at.start - first < NEGATION_REACH and not breaks[first]:
        first -= 1
    return _first_negation(sub, first, at.end)


def _first_negation(text: list[str], start: int, end: int) -> str | None:
    """The first word of ``text[start:end]`` that negates (idioms such as "no doubt" not)."""
    for j in range(start, end):
        nxt = text[j + 1] if j + 1 < len(text) else ""
        after_or = j > 0 and text[j - 1] == "or"  # "whether or not", "sorted or not"
        if text[j] in NEGATIONS and (text[j], nxt) not in NOT_NEGATIONS and not after_or:
            return text[j]
    return None


def _parts(quote: str) -> list[list[str]]:
    """The words of each part of ``quote``, cut where it says "..." (words left out)."""
    parts = (words(p) for p in _ELLIPSIS.split(unicodedata.normalize("NFKC", quote)))
    return [p for p in parts if p]


def _why_not(
    parts: list[list[str]], sub: list[str], breaks: list[int], threshold: float, credit: bool
) -> tuple[Match, str | None]:
    """The quote's match (its worst part's) and why it is no evidence (None: it is)."""
    matches = [_match(p, sub, breaks) for p in parts]
    if threshold != EVIDENCE_THRESHOLD:
        matches = [
            m._replace(threshold=threshold) if m.threshold == EVIDENCE_THRESHOLD else m
            for m in matches
        ]
    worst = min(matches, key=lambda m: m.margin, default=Match(0.0, 0, 0))
    n = sum(len(p) for p in parts)
    if worst.margin < 0:
        return worst, "not in the submission" if n else "no quote"
    if credit and n < min(MIN_CREDIT_QUOTE_WORDS, len(sub)):
        return worst, f"fewer than {MIN_CREDIT_QUOTE_WORDS} words"
    if n == 1:
        at = matches[0]
        if not (at.end - at.start == 1 and breaks[at.start] and breaks[at.end]):
            return worst, "one word, not a clause of its own in the submission"
    for p, at in zip(parts, matches, strict=True):
        there = set(sub[at.start : at.end])
        number = next((w for w in p if w.isdigit() and w not in there), None)
        if number is not None:
            return worst, f"the number {number} is not in the submission there"
        said = _negation(sub, breaks, at)
        quoted = _first_negation(p, 0, len(p))
        if said is not None and quoted is None:
            return worst, f"the submission negates it ({said!r})"
        if quoted is not None and said is None:
            return worst, f"the quote negates what the submission says ({quoted!r})"
    return worst, None


def check_quote(
    quote: str | None,
    submission: str,
    *,
    policy: EvidencePolicy,
    verdict: CriterionVerdict,
    threshold: float = EVIDENCE_THRESHOLD,
    credit: bool = False,
) -> tuple[CriterionVerdict, EvidenceCheck]:
    """The verdict after the check, and the check's record.

    A quote with no word in it (``"..."``, ``""``) is not evidence; nor is one the
    submission negates, nor one word unless it stands alone in the submission (a
    clause of its own); with ``credit`` (the quote would credit a requirement), nor
    one of fewer than ``MIN_CREDIT_QUOTE_WORDS`` words, unless the submission has
    fewer. ``EvidenceCheck.why`` says which when it is not found.
    """
    text = quote or ""
    sw, breaks = words_and_breaks(submission)
    at, why = _why_not(_parts(text), sw, breaks, threshold, credit)
    found = why is None
    after = verdict
    action = "kept"
    if not found and policy == "downgrade":
        after, action = CriterionVerdict.UNMET, "downgraded"
    elif not found and policy == "cannot_assess":
        after, action = CriterionVerdict.CANNOT_ASSESS, "cannot_assess"
    check = EvidenceCheck(
        quote=text,
        found=found,
        similarity=round(at.similarity, 4),
        threshold=at.threshold,
        action=action,
        raw_verdict=verdict,
        why=why,
    )
    return after, check


async def check_evidence(
    out: Outcome,
    question: Question,
    member: Member,
    system: str,
    limiter: AbstractAsyncContextManager[Any] | None,
    policy: EvidencePolicy,
) -> None:
    """Ask ``member`` to quote the submission for ``out``'s MET on ``question``; check it.

    The call's usage and cost are added to ``out``. A failed quote call keeps the
    verdict and records the check as ``unchecked``: a judge failure never decides a
    verdict.
    """
    ctx, prefix, criterion = question.ctx, question.prefix, question.criterion
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
