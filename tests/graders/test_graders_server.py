"""Every grader end to end against a real OpenAI-compatible server, and callable judges.

The server tests are sync and use ``grade_sync`` (a fresh event loop per call, as
users run it), which also closes the SDK clients with their loop.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from rubricjudge import CriterionVerdict, JudgeError, Rubric
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._graders._ensemble import JudgeSpec
from rubricjudge._graders._holistic import RubricAsJudgeGrader
from rubricjudge._graders._oneshot import PerCriterionOneShotGrader
from rubricjudge._graders._prompts import SYSTEM_CRITERION, SYSTEM_HOLISTIC, SYSTEM_ONESHOT
from rubricjudge._judges._registry import get_judge
from tests.support.chat_server import ChatServer, Reply, schema_of
from tests.support.helpers import levels, sky_rubric

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS
LEVELS = levels("vague", "clear")
NO_WAIT = {"Retry-After": "0"}  # the reliability layer honours it: retries without sleeping


@pytest.fixture
def rubric() -> Rubric:
    return sky_rubric(clarity_weight=2, clarity=LEVELS)


def user_of(body: Any) -> str:
    return str(body["messages"][1]["content"])


def judging(body: Any) -> Reply:
    """Answer a per-criterion request by reading it like a (very simple) judge would."""
    user = user_of(body)
    if "Options:" in user:
        return Reply.json({"reason": "reads well", "option": 2})
    asked = user.split("</submission-")[-1]
    said_rayleigh = "Rayleigh" in user.split("</submission-")[0]
    verdict = "MET" if ("Rayleigh" in asked) == said_rayleigh else "UNMET"
    return Reply.json({"reason": f"judged {verdict}", "verdict": verdict})


def judge_for(server: ChatServer, model: str = "test", **options: Any) -> Any:
    return get_judge(f"openai/{model}", base_url=server.base_url, **options)


def test_per_criterion_grades_through_the_server(chat_server: ChatServer, rubric: Rubric) -> None:
    chat_server.handler = judging
    report = CriterionGrader(judge_for(chat_server)).grade_sync(
        rubric, "Rayleigh scattering of sunlight.", query="Why is the sky blue?", item_id="q1"
    )
    cause, myth, clarity = report.report or []
    assert (cause.verdict, myth.verdict) == (MET, UNMET)
    assert clarity.selection is not None and clarity.selection.label == "clear"
    assert cause.reason == "judged MET"
    assert report.score == pytest.approx(rubric.compute_score(["MET", "UNMET", "clear"]))
    assert report.judge_calls == 3 and report.error_count == 0
    assert report.token_usage is not None and report.token_usage.prompt_tokens == 30
    assert cause.llm_invocation is not None and cause.llm_invocation["model"] == "test"
    bodies = [r.json for r in chat_server.chat_requests]
    assert len(bodies) == 3
    assert all(b["messages"][0]["content"] == SYSTEM_CRITERION for b in bodies)
    assert all(b["response_format"]["json_schema"]["name"] == "criterion_judgment" for b in bodies)
    # the submission block is a shared prefix of every request about this item
    users = [user_of(b) for b in bodies]
    shared = os.path.commonprefix(users)
    code = users[0].split("</submission-")[1].split(">")[0]
    assert "Why is the sky blue?" in shared
    assert shared.rstrip().endswith(f"Rayleigh scattering of sunlight.\n</submission-{code}>")


def test_a_spec_string_with_a_base_url_reaches_the_server(
    chat_server: ChatServer, rubric: Rubric
) -> None:
    chat_server.handler = judging
    grader = CriterionGrader(
        "openai/test", judge_options={"base_url": chat_server.base_url}, evidence="off"
    )
    report = grader.grade_sync(rubric, "It reflects the ocean.")
    assert [r.verdict for r in (report.report or [])[:2]] == [UNMET, MET]
    assert len(chat_server.chat_requests) == 3 and grader.judge_ids == ["openai/test"]


def test_one_shot_reasks_only_the_missing_and_garbled_criteria(
    chat_server: ChatServer, rubric: Rubric
) -> None:
    chat_server.script(Reply.json({"1": {"reason": "yes", "verdict": "MET"}, "2": {"v": "?"}}))
    chat_server.handler = judging
    report = PerCriterionOneShotGrader(judge_for(chat_server)).grade_sync(rubric, "Rayleigh.")
    cause, myth, clarity = report.report or []
    assert (cause.verdict, cause.reason) == (MET, "yes")  # from the one-shot reply
    assert myth.verdict is UNMET and myth.reason == "judged UNMET"  # re-asked
    assert clarity.selection is not None and clarity.selection.label == "clear"  # re-asked
    bodies = [r.json for r in chat_server.chat_requests]
    names = [b["response_format"]["json_schema"]["name"] for b in bodies]
    assert names == ["rubric_judgment", "criterion_judgment", "criterion_judgment"]
    assert bodies[0]["messages"][0]["content"] == SYSTEM_ONESHOT
    assert sorted(schema_of(bodies[0])["required"]) == ["1", "2", "3"]  # type: ignore[index]
    assert report.judge_calls == 3 and report.error_count == 0
    assert report.token_usage is not None and report.token_usage.prompt_tokens == 30


def test_one_shot_reply_that_never_parses_falls_back_to_per_criterion(
    chat_server: ChatServer, rubric: Rubric
) -> None:
    judge = judge_for(chat_server, max_parse_retries=1)
    chat_server.script("I would say they are all met.", "Still no JSON, sorry.")
    chat_server.handler = judging
    report = PerCriterionOneShotGrader(judge).grade_sync(rubric, "Rayleigh.")
    assert [r.verdict for r in (report.report or [])[:2]] == [MET, UNMET]
    assert report.error_count == 0
    assert len(chat_server.chat_requests) == 2 + 3  # the one call and its retry, then 3


def test_holistic_grades_through_the_server(chat_server: ChatServer, rubric: Rubric) -> None:
    chat_server.script(Reply.json({"reason": "mostly right", "score": 75}))
    report = RubricAsJudgeGrader(judge_for(chat_server)).grade_sync(rubric, "Rayleigh.")
    assert report.score == pytest.approx(0.75) and report.llm_raw_score == 75
    assert report.raw_score == pytest.approx(0.75 * rubric.total_positive_weight)
    assert report.metadata["reason"] == "mostly right" and report.judge_calls == 1
    body = chat_server.chat_requests[0].json
    assert body["messages"][0]["content"] == SYSTEM_HOLISTIC
    assert body["response_format"]["json_schema"]["name"] == "holistic_score"


def test_an_ensemble_of_two_models_on_one_server(chat_server: ChatServer, rubric: Rubric) -> None:
    def by_model(body: Any) -> Reply:
        if "Options:" in user_of(body):
            return Reply.json({"reason": "r", "option": 1 if body["model"] == "a" else 2})
        return Reply.json(
            {"reason": body["model"], "verdict": "MET" if body["model"] == "a" else "UNMET"}
        )

    chat_server.handler = by_model
    grader = CriterionGrader(
        judges=[
            JudgeSpec(judge_for(chat_server, "a"), weight=2.0),
            JudgeSpec(judge_for(chat_server, "b")),
        ],
        aggregation="weighted",
        ordinal_aggregation="weighted_mean",
        shuffle_options=True,
        evidence="off",
    )
    report = grader.grade_sync(rubric, "text", item_id="i")
    cause, myth, clarity = report.report or []
    assert cause.verdict is MET and myth.verdict is MET  # a outweighs b
    assert cause.agreement == pytest.approx(0.5)
    assert [(v.judge_id, v.weight, v.reason) for v in cause.votes or []] == [
        ("openai/a", 2.0, "a"),
        ("openai/b", 1.0, "b"),
    ]
    assert all(v.shuffle_order is not None for v in clarity.votes or [])
    assert report.judge_calls == 6 and len(chat_server.chat_requests) == 6
    assert {b.json["model"] for b in chat_server.chat_requests} == {"a", "b"}


def test_an_ensemble_member_whose_server_fails_is_left_out(
    chat_server: ChatServer, rubric: Rubric
) -> None:
    def b_fails(body: Any) -> Reply:
        if body["model"] == "b":
            return Reply.server_error(headers=NO_WAIT)
        return judging(body)

    chat_server.handler = b_fails
    members = [judge_for(chat_server, "a"), judge_for(chat_server, "b", max_retries=1)]
    report = CriterionGrader(judges=members).grade_sync(rubric, "Rayleigh.")
    cause = (report.report or [])[0]
    assert cause.verdict is MET and cause.error is None
    failed = [v for v in cause.votes or [] if v.error]
    assert [v.judge_id for v in failed] == ["openai/b"]
    assert failed[0].error is not None and failed[0].error.startswith("server:")
    assert "after 2 attempts" in failed[0].error


def test_500s_that_exhaust_the_retries_are_recorded(
    chat_server: ChatServer, rubric: Rubric
) -> None:
    chat_server.handler = lambda body: Reply.server_error(headers=NO_WAIT)
    judge = judge_for(chat_server, max_retries=2)
    report = CriterionGrader(judge).grade_sync(rubric, "Rayleigh.")
    assert report.score is None and report.error_count == 3
    for r in report.report or []:
        assert r.error_category == "server" and r.verdict is CA
        assert r.error is not None and "500" in r.error and "after 3 attempts" in r.error
    assert len(chat_server.chat_requests) == 9
    worst = {"positive": "UNMET", "negative": "MET"}
    with pytest.raises(JudgeError) as info:
        CriterionGrader(judge, on_error="raise").grade_sync(rubric, "x")
    assert info.value.category == "server"
    report = CriterionGrader(judge, default_fallback_verdicts=worst).grade_sync(rubric, "x")
    assert [r.verdict for r in (report.report or [])[:2]] == [UNMET, MET]
    holistic = RubricAsJudgeGrader(judge).grade_sync(rubric, "x")
    assert holistic.score is None and holistic.error is not None and "server" in holistic.error


def test_a_reply_that_is_not_json_is_a_recorded_parse_error(
    chat_server: ChatServer, rubric: Rubric
) -> None:
    chat_server.handler = lambda body: Reply.text('{"verdict": "MET", oops')
    report = CriterionGrader(judge_for(chat_server)).grade_sync(rubric, "x")
    for r in report.report or []:
        assert r.error_category == "parse" and r.verdict is CA
    assert "after 3 attempts" in ((report.report or [])[0].error or "")  # 2 parse re-asks
    asks = [user_of(r.json) for r in chat_server.chat_requests]
    assert sum("could not be read as one JSON object" in u for u in asks) == 6


def test_an_http_body_that_is_not_json_is_recorded(chat_server: ChatServer, rubric: Rubric) -> None:
    chat_server.handler = lambda body: Reply.malformed_body()
    judge = judge_for(chat_server, max_retries=0, max_parse_retries=0)
    report = CriterionGrader(judge).grade_sync(rubric, "x")
    assert report.score is None
    assert all(r.error is not None and r.error_category for r in report.report or [])


def test_a_verdict_outside_the_schema_is_a_parse_error(
    chat_server: ChatServer, rubric: Rubric
) -> None:
    chat_server.handler = lambda body: Reply.json({"reason": "hm", "verdict": "PARTLY"})
    report = CriterionGrader(judge_for(chat_server)).grade_sync(rubric, "x")
    first = (report.report or [])[0]
    assert first.error_category == "parse" and "'PARTLY'" in (first.error or "")


# -- generate_fn callables --------------------------------------------------------
def fenced(obj: Any) -> str:
    return f"Here you go:\n```json\n{json.dumps(obj, indent=1)}\n```\n"


def reply_text(system: str, user: str) -> str:
    """What a chatty model would say: fenced JSON for whichever question was asked."""
    if system == SYSTEM_HOLISTIC:
        return fenced({"reason": "ok", "score": 40})
    if system == SYSTEM_ONESHOT:
        return fenced({"1": {"reason": "r", "verdict": "MET"}, "3": {"reason": "r", "option": 1}})
    if "Options:" in user:
        return fenced({"reason": "r", "option": 2})
    asked = user.split("</submission-")[-1]
    return fenced({"reason": "r", "verdict": "MET" if "Rayleigh" in asked else "UNMET"})


def sync_fn(system: str, user: str) -> str:
    return reply_text(system, user)


async def async_fn(system: str, user: str) -> str:
    return reply_text(system, user)


@pytest.mark.parametrize("fn", [sync_fn, async_fn])
async def test_generate_fn_graders(rubric: Rubric, fn: Any) -> None:
    report = await CriterionGrader(generate_fn=fn).grade(rubric, "Rayleigh.")
    cause, myth, clarity = report.report or []
    assert (cause.verdict, myth.verdict) == (MET, UNMET)
    assert clarity.selection is not None and clarity.selection.label == "clear"
    assert report.error_count == 0 and report.judge_calls == 3

    report = await PerCriterionOneShotGrader(generate_fn=fn).grade(rubric, "Rayleigh.")
    cause, myth, clarity = report.report or []
    assert cause.verdict is MET and myth.verdict is UNMET  # 2 was missing: re-asked
    assert clarity.selection is not None and clarity.selection.label == "vague"
    assert report.judge_calls == 2

    report = await RubricAsJudgeGrader(generate_fn=fn).grade(rubric, "Rayleigh.")
    assert report.score == pytest.approx(0.4)


async def test_generate_fn_failures_are_recorded(rubric: Rubric) -> None:
    def broken(system: str, user: str) -> str:
        raise RuntimeError("model not loaded")

    report = await CriterionGrader(generate_fn=broken).grade(rubric, "x")
    first = (report.report or [])[0]
    assert first.error_category == "function" and "model not loaded" in (first.error or "")
    report = await CriterionGrader(generate_fn=lambda s, u: "no idea", max_retries=0).grade(
        rubric, "x"
    )
    assert {r.error_category for r in report.report or []} == {"parse"}
