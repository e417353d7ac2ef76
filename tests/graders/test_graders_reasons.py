"""Reasons for the verdicts that cost points, asked of a verdict-only judge over real HTTP."""

from __future__ import annotations

from typing import Any

from rubricjudge import Criterion, CriterionGrader, CriterionVerdict, Rubric
from tests.support.chat_server import ChatServer, Reply
from tests.support.judge_helpers import openai_judge

RUBRIC = Rubric(
    [
        Criterion(name="cause", weight=2.0, requirement="Names Rayleigh scattering"),
        Criterion(name="scope", weight=1.0, requirement="Mentions sunsets"),
        Criterion(name="myth", weight=-1.0, requirement="Says the sky reflects the ocean"),
    ]
)
SUB = "The sky is blue because it reflects the ocean."


def answers(verdicts: dict[str, str], reason: Any = "It says the sky reflects the ocean."):
    """A handler: yes/no by criterion for verdict calls, ``reason`` for reason calls."""

    def handle(body: Any) -> Reply:
        prompt = body["messages"][1]["content"]
        if "The grader decided" in prompt:
            if isinstance(reason, Reply):
                return reason
            return Reply.json({"reason": reason})
        for requirement, answer in verdicts.items():
            if f"Statement about the submission: {requirement}" in prompt:
                return Reply.json({"answer": answer})
        raise AssertionError(prompt)

    return handle


VERDICTS = {"Names Rayleigh scattering": "no", "Mentions sunsets": "yes", "Says the sky": "yes"}


async def test_only_the_verdicts_that_cost_points_get_a_reason(chat_server: ChatServer) -> None:
    chat_server.handler = answers(VERDICTS)
    grader = CriterionGrader(
        openai_judge(chat_server), verdict_method="verdict-only", evidence="off"
    )
    report = await grader.grade(RUBRIC, SUB)
    cause, scope, myth = report.report or []
    assert cause.verdict is CriterionVerdict.UNMET and cause.reason.startswith("It says")
    assert scope.verdict is CriterionVerdict.MET and scope.reason == ""  # earned: no call
    assert myth.verdict is CriterionVerdict.MET and myth.reason.startswith("It says")
    prompts = [r.json["messages"][1]["content"] for r in chat_server.chat_requests]
    asked = [p for p in prompts if "The grader decided" in p]
    assert len(prompts) == 5 and len(asked) == 2
    # the verdict is stated, the submission is still in its block, the reply is bounded
    assert any("is not true of the submission" in p and "Rayleigh" in p for p in asked)
    assert any("is true of the submission" in p and "ocean" in p for p in asked)
    assert all(SUB in p for p in asked)
    bodies = [r.json for r in chat_server.chat_requests]
    reason_schema = [b for b in bodies if "The grader decided" in b["messages"][1]["content"]]
    # one short sentence: 28 tokens, and a schema that makes a constrained judge close it
    assert all(b["max_tokens"] == 28 for b in reason_schema)
    assert all(
        b["response_format"]["json_schema"]["schema"]["properties"]["reason"]["maxLength"] == 80
        for b in reason_schema
    )
    assert report.judge_calls == 5


async def test_no_reasons_asks_nothing_more(chat_server: ChatServer) -> None:
    chat_server.handler = answers(VERDICTS)
    grader = CriterionGrader(
        openai_judge(chat_server), verdict_method="verdict-only", evidence="off", reasons=False
    )
    report = await grader.grade(RUBRIC, SUB)
    assert len(chat_server.chat_requests) == 3
    assert all(cr.reason == "" for cr in report.report or [])


async def test_a_failed_reason_call_never_changes_the_verdict(chat_server: ChatServer) -> None:
    chat_server.handler = answers(VERDICTS, reason=Reply.server_error(400))
    grader = CriterionGrader(
        openai_judge(chat_server), verdict_method="verdict-only", evidence="off"
    )
    report = await grader.grade(RUBRIC, SUB)
    cause = (report.report or [])[0]
    assert cause.verdict is CriterionVerdict.UNMET and cause.error is None
    assert cause.reason == "" and "reason_error" in (cause.llm_invocation or {})
    chat_server.handler = answers(VERDICTS)
    plain = await CriterionGrader(
        openai_judge(chat_server), verdict_method="verdict-only", evidence="off", reasons=False
    ).grade(RUBRIC, SUB)
    assert report.score == plain.score == 0.0  # sunsets +1, the ocean myth -1, of 3 points


async def test_a_judge_that_writes_reasons_is_not_asked_again(chat_server: ChatServer) -> None:
    chat_server.handler = lambda body: Reply.json({"reason": "No mention of it.", "answer": "no"})
    grader = CriterionGrader(
        openai_judge(chat_server), verdict_method="reason-first", evidence="off"
    )
    await grader.grade(RUBRIC, SUB)
    assert len(chat_server.chat_requests) == 3


async def test_repeated_judgments_ask_one_reason_for_the_majority(chat_server: ChatServer) -> None:
    # repeats: each verdict is asked three times, but the reason once, of the answer that counts
    chat_server.handler = answers(VERDICTS)
    grader = CriterionGrader(
        openai_judge(chat_server), verdict_method="verdict-only", evidence="off", repeats=3
    )
    report = await grader.grade(RUBRIC, SUB)
    cause, scope, myth = report.report or []
    assert cause.verdict is CriterionVerdict.UNMET and cause.reason.startswith("It says")
    assert myth.verdict is CriterionVerdict.MET and myth.reason.startswith("It says")
    assert scope.reason == ""
    assert cause.stability is not None and cause.stability.flip_rate == 0.0
    prompts = [r.json["messages"][1]["content"] for r in chat_server.chat_requests]
    assert len(prompts) == 3 * 3 + 2
    assert sum("The grader decided" in p for p in prompts) == 2
    assert report.judge_calls == 11


async def test_a_reason_cut_at_the_bound_ends_on_a_whole_word(chat_server: ChatServer) -> None:
    cut = "The submission does not mention Rayleigh scattering as the cause of the sky's bl"
    whole = "It names no cause, and says the sky reflects the ocean"  # short: kept as written
    assert len(cut) == 80
    for said, shown in ((cut, cut[: cut.rindex(" ")] + " …"), (whole, whole)):
        chat_server.handler = answers(VERDICTS, reason=said)
        grader = CriterionGrader(
            openai_judge(chat_server), verdict_method="verdict-only", evidence="off"
        )
        report = await grader.grade(RUBRIC, SUB)
        cause = next(cr for cr in report.report or [] if cr.criterion.name == "cause")
        assert cause.reason == shown
