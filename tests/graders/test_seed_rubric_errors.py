"""Seed 002's "Retry and Fallback Behavior" example, run as written (imports aside).

The seed says a reply that never parses raises ValueError after ``max_retries``
retries. rubricjudge records it by default (docs/scoring.md, "Where rubricjudge differs") and
raises it with ``on_error="raise"``: then it is a :class:`JudgeParseError`, which
is also a ValueError, so the seed's ``except ValueError`` still catches it.
"""

from __future__ import annotations

import pickle

import pytest

from rubricjudge import Criterion, JudgeError, JudgeParseError, Rubric, RubricJudgeError
from rubricjudge.graders import PerCriterionGrader

RUBRIC = Rubric(
    [
        Criterion(weight=10.0, requirement="States Q4 2023 base margin as 17.2%"),
        Criterion(weight=-15.0, requirement="Uses total deliveries instead of cash-only"),
    ]
)


class Garbled:
    """A generate_fn whose replies never parse; counts the calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, system_prompt: str, user_prompt: str) -> str:
        self.calls += 1
        return "I think it is probably fine, more or less."


async def test_default_records_the_failure_instead_of_raising() -> None:
    fn = Garbled()
    grader = PerCriterionGrader(generate_fn=fn, max_retries=2)
    report = await RUBRIC.grade("The margin was 17.2%.", autograder=grader)
    assert report.score is None
    assert report.error is not None and "parse" in report.error
    assert fn.calls == 2 * 3  # two criteria, each tried 3 times (2 retries)
    assert report.report is not None
    assert all(r.error_category == "parse" for r in report.report)


async def test_raise_policy_raises_a_value_error_as_the_seed_says() -> None:
    fn = Garbled()
    grader = PerCriterionGrader(generate_fn=fn, max_retries=2, on_error="raise")
    with pytest.raises(ValueError, match="parse") as info:
        await RUBRIC.grade("The margin was 17.2%.", autograder=grader)
    assert isinstance(info.value, JudgeParseError)
    assert isinstance(info.value, JudgeError) and isinstance(info.value, RubricJudgeError)
    assert info.value.category == "parse"


@pytest.mark.parametrize(
    ("fallbacks", "raw"),
    [
        ({"positive": "UNMET", "negative": "UNMET"}, 0.0),  # nothing earned, no penalty
        ({"positive": "UNMET", "negative": "MET"}, -15.0),  # conservative: worst case
    ],
)
async def test_fallback_verdicts_score(fallbacks: dict[str, str], raw: float) -> None:
    grader = PerCriterionGrader(generate_fn=Garbled(), default_fallback_verdicts=fallbacks)
    report = await RUBRIC.grade("The margin was 17.2%.", autograder=grader)
    assert report.score == 0.0 and report.raw_score == raw
    assert report.error_count == 2


def test_only_parse_failures_are_value_errors() -> None:
    parse = JudgeError("no JSON object in the reply", category="parse", raw_text="hm")
    assert type(parse) is JudgeParseError and isinstance(parse, ValueError)
    assert parse.raw_text == "hm" and str(parse) == "parse: no JSON object in the reply"
    timeout = JudgeError("took too long", category="timeout")
    assert type(timeout) is JudgeError and not isinstance(timeout, ValueError)
    assert type(pickle.loads(pickle.dumps(parse))) is JudgeParseError
