"""Evidence quotes are matched word by word on normalised text (issues 23, 32, 33).

A fault written in full-width letters, with zero-width spaces or with Cyrillic
look-alike letters keeps its penalty (it lost it: score 0.0 -> 1.0); a negated quote,
a quote wrapped around a short submission, a one-word quote and a quote of words the
submission says negated are not evidence; a true fault quoted loosely, as a small
judge paraphrases, is (the README demo's "ocean" answer lost its penalty).
"""

from __future__ import annotations

from typing import Any

import pytest

from rubricjudge import Criterion, CriterionVerdict, Rubric
from rubricjudge._graders._criterion import CriterionGrader
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
    # a penalty's one-word quote is no evidence (issue 32): one common word is in almost
    # any text; unless that word is a clause of its own there ("... ＩＤＩＯＴ" above)
    _, check = check_quote("blue", sub, policy="downgrade", verdict=MET)
    assert not check.found and check.why is not None and "one word" in check.why


async def test_evidence_all_does_not_credit_a_one_word_quote() -> None:
    grader = CriterionGrader(judge("the"), verdict_method="verdict-only", evidence="all")
    report = await grader.grade(RUBRIC.criteria[:1], "The answer is the number 4, which is even.")
    answer = (report.report or [])[0]
    assert answer.verdict is UNMET and answer.evidence_check is not None
    assert answer.evidence_check.raw_verdict is MET and not answer.evidence_check.found


# -- issue 32: look-alike letters, one-word and negated quotes ----------------------


@pytest.mark.parametrize(
    ("submission", "quote"),
    [
        # Cyrillic і, о for Latin i, o: the judge quotes it in Latin letters
        ("The answer is 4. You are an \u0456d\u0456\u043et.", "You are an idiot"),
        # Cyrillic а, е, о, с in the submission and in the quote alike
        (
            "The sky is blue because it r\u0435fl\u0435cts the \u043e\u0441\u0435\u0430n.",
            "it reflects the ocean",
        ),
        (
            "The sky is blue because it reflects the ocean.",
            "it r\u0435fl\u0435cts the \u043e\u0441\u0435\u0430n",
        ),
        # Greek capitals and accents: ΙDΙΟΤ, ìdiòt
        ("You are an \u0399D\u0399\u039f\u03a4, honestly.", "you are an IDIOT"),
        ("You are an i\u0300dio\u0300t, honestly.", "you are an idiot"),
    ],
)
async def test_look_alike_letters_do_not_hide_a_fault(submission: str, quote: str) -> None:
    grader = CriterionGrader(judge(quote), verdict_method="verdict-only")
    report = await grader.grade(RUBRIC, submission)
    insult = (report.report or [])[1]
    assert insult.evidence_check is not None and insult.evidence_check.found
    assert insult.verdict is MET


@pytest.mark.parametrize(
    ("quote", "submission", "why"),
    [
        ("idiot", "You are an idiot, really, an idiot.", "one word"),
        ("call you an idiot", "I would never call you an idiot; the answer is 4.", "'never'"),
        ("the sky reflects the ocean", "The sky does not reflect the ocean.", "'not'"),
        ("the original list is changed", "The original list isn't changed by sorted().", "'not'"),
        (
            "the Great Wall is not visible from the Moon",
            "The Great Wall is visible from the Moon.",
            "the quote negates",
        ),
        (
            "The Peace of Westphalia was signed in 1658",
            "The Peace of Westphalia was signed in 1648 and ended the war.",
            "1658",
        ),
    ],
)
def test_one_word_negated_or_misnumbered_quotes_are_no_evidence(
    quote: str, submission: str, why: str
) -> None:
    after, check = check_quote(quote, submission, policy="downgrade", verdict=MET)
    assert after is UNMET and not check.found
    assert check.why is not None and why in check.why


def test_a_negation_elsewhere_or_an_idiom_does_not_count() -> None:
    for sub in (
        "The answer is not 4. You are an idiot.",  # another sentence
        "No, you are an idiot.",  # another clause
        "There is no doubt you are an idiot.",  # "no doubt" affirms
        "Whether or not you are an idiot, the answer is 4.",  # "or not" negates nothing
    ):
        _, check = check_quote("you are an idiot", sub, policy="downgrade", verdict=MET)
        assert check.found, sub
    # the local judge's quote of an authored penalty: "or not" in both negates nothing
    sub = "It checks every element one by one, and it works whether or not the list is sorted."
    _, check = check_quote(sub, sub, policy="downgrade", verdict=MET)
    assert check.found, check


# -- issue 33, item 6: a true penalty quoted loosely is kept, an invented one is not ---

OCEAN = (
    "The sky is blue because it reflects the colour of the oceans, which cover most of the Earth."
)


@pytest.mark.parametrize(
    "quote",
    [
        # the local judge's quote in the README demo (words of the requirement mixed in):
        # similarity 0.75 before, the true penalty dropped
        "The sky is blue because it reflects the ocean or the sea.",
        "The sky is blue because it reflects the ocean",
        "The sky reflects the colour of the oceans.",
        "sky is blue because it reflects the oceans which cover the Earth",
        "The sky is blue ... it reflects the colour of the oceans",  # cut with "..."
    ],
)
def test_a_loose_quote_of_a_true_fault_is_found(quote: str) -> None:
    after, check = check_quote(quote, OCEAN, policy="downgrade", verdict=MET)
    assert after is MET and check.found, check


@pytest.mark.parametrize(
    "quote",
    [
        "the sky is blue because of pollution",  # a word it does not have
        "the oceans are blue because they reflect the sky",  # its words, in another order
        "the sky mirrors the sea",  # synonyms: no word rule can tell them from invention
        "The sky is blue ... because of the sea",  # one part not there
    ],
)
def test_an_invented_quote_is_still_not_found(quote: str) -> None:
    after, check = check_quote(quote, OCEAN, policy="downgrade", verdict=MET)
    assert after is UNMET and not check.found, check


async def test_the_demo_ocean_answer_keeps_its_penalty_with_a_paraphrased_quote() -> None:
    rubric = Rubric(
        [
            Criterion(name="answer", weight=1, requirement="Answers the question"),
            Criterion(
                name="ocean_myth",
                weight=-8,
                requirement="The answer claims the sky is blue because it reflects the ocean.",
            ),
        ]
    )
    grader = CriterionGrader(
        judge("The sky is blue because it reflects the ocean or the sea."),
        verdict_method="verdict-only",
    )
    report = await grader.grade(rubric, OCEAN)
    myth = (report.report or [])[1]
    assert myth.verdict is MET and myth.evidence_check is not None  # was downgraded at 0.75
    assert myth.evidence_check.found and report.score == 0.0
