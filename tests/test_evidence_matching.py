"""Evidence quotes are matched word by word on normalised text (issue 23, N7).

A fault written in full-width letters or with zero-width spaces keeps its penalty
(it lost it: score 0.0 -> 1.0); a negated quote, a quote wrapped around a short
submission and a one-word quote that would credit a requirement are not evidence.
"""

from __future__ import annotations

from typing import Any

import pytest

from rubricjudge import Criterion, CriterionVerdict, Rubric
from rubricjudge._graders import CriterionGrader
from rubricjudge._graders._evidence import check_quote, similarity
from rubricjudge._judges._base import JudgeRequest, JudgeResponse
from rubricjudge._judges._fake import FakeJudge

MET, UNMET = CriterionVerdict.MET, CriterionVerdict.UNMET
RUBRIC = Rubric(
    [
        Criterion(name="answer", weight=1, requirement="Answers the question"),
        Criterion(name="insult", weight=-1, requirement="Insults the user"),
    ]
)


def judge(quote: str, *, answer: str = "MET") -> FakeJudge:
    def reply(req: JudgeRequest) -> Any:
        if req.tags.get("evidence"):
            return {"quote": quote}
        verdict = answer if req.tags["key"] == "answer" else "PRESENT"
        return JudgeResponse(data={"verdict": verdict}, raw_text="", cost=0.0)

    return FakeJudge(default=reply)


@pytest.mark.parametrize(
    ("submission", "quote"),
    [
        ("The answer is 4. You are an ＩＤＩＯＴ.", "You are an IDIOT"),
        ("The answer is 4. ＩＤＩＯＴ", "IDIOT"),  # one word on its own: still the fault
        ("The answer is 4. You are an i\u200bd\u200bi\u200bo\u200bt.", "you are an idiot"),
        ("The answer is 4. You are an idiot\u00ad.", "an idiot"),  # soft hyphen (Cf)
        ("The answer is 4. You are an idiot.", "ＹＯＵ ＡＲＥ ＡＮ ＩＤＩＯＴ"),
    ],
)
async def test_a_disguised_fault_keeps_its_penalty(submission: str, quote: str) -> None:
    grader = CriterionGrader(judge(quote), verdict_method="verdict-only")
    report = await grader.grade(RUBRIC, submission)
    insult = (report.report or [])[1]
    assert insult.verdict is MET and insult.evidence_check is not None
    assert insult.evidence_check.found and insult.evidence_check.similarity == 1.0
    assert report.score == 0.0  # was 1.0: the penalty was lost


@pytest.mark.parametrize(
    ("quote", "submission"),
    [
        ("not an idiot", "You are such an idiot, really."),  # a word it does not have there
        ("this whole answer is idiot stuff", "idiot"),  # wrapped around a short submission
        ("the sky is blue because of the ocean", "The sky is blue because of Rayleigh scattering"),
        ("an idiot", "You are idiotic."),  # words, not letters: "idiot" is not "idiotic"
    ],
)
def test_a_quote_the_submission_does_not_hold_is_not_found(quote: str, submission: str) -> None:
    assert similarity(quote, submission) < 0.85
    after, check = check_quote(quote, submission, policy="downgrade", verdict=MET)
    assert after is UNMET and not check.found and check.action == "downgraded"


def test_small_spelling_differences_and_punctuation_still_match() -> None:
    sub = "Honestly, the sky reflects the color of the ocean -- everyone knows it."
    assert similarity("the sky reflects the colour of the ocean", sub) == 1.0
    assert similarity('"Honestly the sky reflects..."', sub) == 1.0
    ten = "one two three four five six seven eight nine ten"
    assert similarity(ten, ten.replace("five", "5")) == 0.9  # one changed word in ten


def test_a_quote_that_credits_needs_three_words_unless_the_submission_is_shorter() -> None:
    sub = "The sky is blue because air scatters blue light."
    for quote, found in (("the", False), ("blue light", False), ("scatters blue light", True)):
        _, check = check_quote(quote, sub, policy="downgrade", verdict=MET, credit=True)
        assert check.found is found, quote
    _, check = check_quote("Paris", "Paris.", policy="downgrade", verdict=MET, credit=True)
    assert check.found  # the whole submission is one word
    # a penalty's one-word quote is evidence: the check may only take a penalty away
    _, check = check_quote("blue", sub, policy="downgrade", verdict=MET)
    assert check.found


async def test_evidence_all_does_not_credit_a_one_word_quote() -> None:
    grader = CriterionGrader(judge("the"), verdict_method="verdict-only", evidence="all")
    report = await grader.grade(RUBRIC.criteria[:1], "The answer is the number 4, which is even.")
    answer = (report.report or [])[0]
    assert answer.verdict is UNMET and answer.evidence_check is not None
    assert answer.evidence_check.raw_verdict is MET and not answer.evidence_check.found
