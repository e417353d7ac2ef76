"""Grading conversations through a real OpenAI-compatible server that reads the prompts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import Criterion, CriterionVerdict, Rubric, RubricDataset
from rubricjudge._cli.main import main
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._graders._holistic import RubricAsJudgeGrader
from rubricjudge._graders._oneshot import PerCriterionOneShotGrader
from rubricjudge._judges._registry import get_judge
from rubricjudge._rewards._reward import RubricReward
from tests.support.chat_server import ChatServer, Reply
from tests.support.trajectories import (
    ANTHROPIC,
    ANTHROPIC_SYSTEM,
    OPENAI,
    SECRET_ARGUMENT,
    SECRET_RESULT,
)

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS
SUBMISSION = re.compile(r"<submission-([0-9a-f]{8})>\n(.*)\n</submission-\1>", re.S)


def parts(body: Any) -> tuple[str, str]:
    """(the submission block, the rest after it) of a per-criterion request."""
    user = str(body["messages"][-1]["content"])
    m = SUBMISSION.search(user)
    assert m is not None, user
    return m.group(2), user[m.end() :]


def reader(body: Any) -> Reply:
    """A judge that says yes when the quoted phrase of the statement is in the submission."""
    block, after = parts(body)
    wanted = re.search(r'"([^"]+)"', after)
    assert wanted is not None
    return Reply.json({"reason": "read", "answer": "yes" if wanted.group(1) in block else "no"})


def judge(server: ChatServer) -> Any:
    return get_judge("openai/test", base_url=server.base_url, cache=False)


def facts() -> Rubric:
    return Rubric(
        [
            Criterion(name="result", requirement=f'Mentions "{SECRET_RESULT}"'),
            Criterion(name="argument", requirement=f'Mentions "{SECRET_ARGUMENT}"'),
            Criterion(name="absent", requirement='Mentions "a unicorn"'),
        ]
    )


def test_facts_only_in_a_tool_result_or_in_arguments_reach_the_judge(
    chat_server: ChatServer,
) -> None:
    chat_server.handler = reader
    report = CriterionGrader(judge(chat_server), evidence="off").grade_sync(facts(), OPENAI)
    assert [cr.verdict for cr in report.report] == [MET, MET, UNMET]
    block, _ = parts(chat_server.chat_requests[0].json)
    assert SECRET_RESULT in block and SECRET_ARGUMENT in block
    record = report.metadata["conversation"]
    assert record["messages"] == 11 and record["budget_tokens"] == 32000
    assert "elided_turns" not in record


@pytest.mark.parametrize("grader_class", [CriterionGrader, PerCriterionOneShotGrader])
def test_the_anthropic_and_openai_forms_grade_the_same(
    chat_server: ChatServer, grader_class: Any
) -> None:
    chat_server.handler = lambda body: None  # the default: answers valid for the schema
    grader = grader_class(judge(chat_server), evidence="off")
    a = grader.grade_sync(facts(), OPENAI, item_id="x")
    prompts_a = sorted(json.dumps(r.json["messages"]) for r in chat_server.chat_requests)
    chat_server.reset()
    anthropic = {"messages": ANTHROPIC, "system": ANTHROPIC_SYSTEM}
    b = grader.grade_sync(facts(), anthropic, item_id="x")
    prompts_b = sorted(json.dumps(r.json["messages"]) for r in chat_server.chat_requests)
    assert prompts_a == prompts_b and prompts_a  # the same words reach the judge
    assert a.model_dump(exclude={"report"}) == b.model_dump(exclude={"report"})
    assert [cr.verdict for cr in a.report] == [cr.verdict for cr in b.report]


def long_trajectory() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "user", "content": "Plan my trip."}]
    for k in range(40):
        out.append({"role": "assistant", "content": f"Step {k}: " + "details " * 30})
        out.append({"role": "user", "content": f"ok {k}"})
    out.append({"role": "assistant", "content": "All done: the final plan."})
    return out


def test_over_the_budget_the_policy_decides_and_the_report_says_so(chat_server: ChatServer) -> None:
    chat_server.handler = reader
    rubric = Rubric(
        [
            Criterion(name="done", requirement='Says "the final plan"'),
            Criterion(
                name="ends",
                requirement="ends with the assistant",
                scoring_method={
                    "type": "trajectory",
                    "trajectory": {"check": "ends_with_assistant"},
                },
            ),
        ]
    )
    refused = CriterionGrader(judge(chat_server), conversation_budget=500).grade_sync(
        rubric, long_trajectory()
    )
    assert chat_server.chat_requests == []  # the judge is not asked
    done, ends = refused.report
    assert done.verdict is CA and done.error_category == "over_budget"
    assert "over the judge's budget of 500" in (done.error or "")
    assert ends.verdict is MET and refused.error_count == 1  # exact checks need no judge
    assert refused.metadata["conversation"]["over_budget"] == "error"

    elided = CriterionGrader(
        judge(chat_server), conversation_budget=500, over_budget="elide", evidence="off"
    ).grade_sync(rubric, long_trajectory())
    block, _ = parts(chat_server.chat_requests[0].json)
    assert re.search(r"\[\.\.\. \d+ turns elided \(#2 to #\d+\) to fit the judge's budget", block)
    assert block.splitlines()[0] == "#1 user: Plan my trip."
    assert block.endswith("#82 assistant: All done: the final plan.")
    assert elided.report[0].verdict is MET
    record = elided.metadata["conversation"]
    assert record["over_budget"] == "elide" and record["elided_turns"] > 50
    assert record["tokens"] <= 500 < record["full_tokens"]


def scoped_reader(body: Any) -> Reply:
    """Says yes when the scoped turn (or the tool part) of the submission holds the phrase."""
    block, after = parts(body)
    wanted = re.search(r'"([^"]+)"', after)
    assert wanted is not None
    scope = re.search(r"messages? #(\d+)(?: to #(\d+))?", after)
    lines = block.splitlines()
    if "tool calls" in after.strip().split("\n")[0]:
        lines = [line for line in lines if " calls tool " in line or " tool result " in line]
    elif scope is not None:
        first, last = int(scope.group(1)), int(scope.group(2) or scope.group(1))
        lines = [line for line in lines if first <= int(line[1:].split(" ")[0]) <= last]
    seen = wanted.group(1) in "\n".join(lines)
    return Reply.json({"reason": f"turn read: {seen}", "answer": "yes" if seen else "no"})


def test_scopes_final_turn_every_turn_and_tool_calls(chat_server: ChatServer) -> None:
    chat_server.handler = scoped_reader
    conv = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello, friend."},
        {"role": "user", "content": "book"},
        {
            "role": "assistant",
            "content": "Booking.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "book", "arguments": '{"seat": "12A"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "booked, friend"},
        {"role": "assistant", "content": "Done, friend."},
        {"role": "user", "content": "bye"},
        {"role": "assistant", "content": "Bye."},
    ]
    every = dict(scope="every_assistant_turn")
    rubric = Rubric(
        [
            Criterion(name="final", requirement='Says "Bye"', scope="final_assistant_turn"),
            Criterion(name="final_no", requirement='Says "Hello"', scope="final_assistant_turn"),
            Criterion(name="all", requirement='Says "friend"', **every),
            Criterion(name="any", requirement='Says "friend"', turn_aggregation="any", **every),
            Criterion(name="mean", requirement='Says "friend"', turn_aggregation="mean", **every),
            Criterion(name="fault", requirement='Says "Booking"', weight=-1.0, **every),
            Criterion(name="tools", requirement='Says "12A"', scope="tool_calls"),
            Criterion(name="tools_no", requirement='Says "Hello"', scope="tool_calls"),
        ]
    )
    report = CriterionGrader(judge(chat_server), evidence="off").grade_sync(rubric, conv)
    by = {cr.criterion.name: cr for cr in report.report}
    assert by["final"].verdict is MET and by["final_no"].verdict is UNMET
    assert [t.verdict for t in by["all"].turns] == [MET, MET, UNMET]
    assert [(t.turn, t.first, t.last) for t in by["all"].turns] == [(1, 2, 2), (2, 4, 6), (3, 8, 8)]
    assert by["all"].verdict is UNMET and by["all"].reason.startswith("turn 3")
    assert by["any"].verdict is MET
    assert by["mean"].turn_credit == pytest.approx(2 / 3) and by["mean"].verdict is MET
    assert by["fault"].verdict is MET  # a penalty: any turn with the fault charges it
    assert by["tools"].verdict is MET and by["tools_no"].verdict is UNMET
    # 2 final + 3 x 4 turns + 2 tools
    assert report.judge_calls == 16 == len(chat_server.chat_requests)
    # the weighted score counts the mean's credit, not its rounded verdict
    assert report.score == pytest.approx((10 * (1 + 0 + 0 + 1 + 2 / 3 + 1 + 0) - 1) / 70)
    notes = {parts(r.json)[1].strip().split("\n")[0] for r in chat_server.chat_requests}
    assert (
        "Scope: decide this only on the assistant's turn 2 of 3, messages #4 to #6 of the "
        "conversation above; the other messages are context."
    ) in notes
    plan = CriterionGrader(judge(chat_server)).plan(rubric, conv)
    assert plan.judge_calls == 16


def test_a_failed_turn_is_recorded_and_decides_nothing(chat_server: ChatServer) -> None:
    def flaky(body: Any) -> Reply:
        _, after = parts(body)
        if "turn 2 of 3" in after:
            return Reply.server_error(headers={"Retry-After": "0"})
        return scoped_reader(body)

    chat_server.handler = flaky
    conv = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "x friend"},
        {"role": "user", "content": "b"},
        {"role": "assistant", "content": "y"},
        {"role": "user", "content": "c"},
        {"role": "assistant", "content": "z friend"},
    ]
    rubric = Rubric(
        [
            Criterion(name="all", requirement='Says "friend"', scope="every_assistant_turn"),
            Criterion(
                name="any",
                requirement='Says "y"',
                scope="every_assistant_turn",
                turn_aggregation="any",
            ),
            Criterion(
                name="mean",
                requirement='Says "friend"',
                scope="every_assistant_turn",
                turn_aggregation="mean",
            ),
        ]
    )
    grader = CriterionGrader(
        judge(
            chat_server,
        ),
        evidence="off",
        judge_options={"max_retries": 0},
    )
    report = grader.grade_sync(rubric, conv)
    all_, any_, mean = report.report
    assert all_.turns[1].error is not None
    # all: turns 1 and 3 MET, turn 2 unknown: the criterion records the failure
    assert all_.verdict is CA and all_.error is not None and all_.error.startswith("turn 2:")
    # any: turn 2 said "y" but failed; the other turns do not settle it either
    assert any_.verdict is CA and any_.error is not None
    assert mean.error is not None and mean.turn_credit is None
    assert report.error_count == 3


def test_holistic_grader_sees_the_conversation(chat_server: ChatServer) -> None:
    chat_server.handler = lambda body: Reply.json({"reason": "fine", "score": 80})
    report = RubricAsJudgeGrader(judge(chat_server)).grade_sync(facts(), OPENAI)
    block, _ = parts(chat_server.chat_requests[0].json)
    assert SECRET_RESULT in block and report.score == pytest.approx(0.8)
    assert report.metadata["conversation"]["messages"] == 11


def test_grade_lines_with_messages_end_to_end(
    chat_server: ChatServer, tmp_path: Path, capsys: Any
) -> None:
    chat_server.handler = reader
    rubric = tmp_path / "r.json"
    rubric.write_text(json.dumps(facts().to_dict()))
    lines = tmp_path / "in.jsonl"
    lines.write_text(
        json.dumps({"id": "openai", "messages": OPENAI})
        + "\n"
        + json.dumps({"id": "anthropic", "messages": ANTHROPIC, "system": ANTHROPIC_SYSTEM})
        + "\n"
        + json.dumps({"id": "text", "submission": f"only {SECRET_RESULT}"})
        + "\n"
    )
    out = tmp_path / "out.jsonl"
    args = [
        "grade",
        str(rubric),
        str(lines),
        "--judge",
        "openai/test",
        "--base-url",
        chat_server.base_url,
    ]
    assert main([*args, "-o", str(out), "--evidence", "off"]) == 0
    reports = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in reports] == ["openai", "anthropic", "text"]
    assert [[c["verdict"] for c in r["report"]] for r in reports] == [
        ["MET", "MET", "UNMET"],
        ["MET", "MET", "UNMET"],
        ["MET", "UNMET", "UNMET"],
    ]
    assert "conversation" in reports[0]["metadata"] and "conversation" not in reports[2]["metadata"]
    capsys.readouterr()

    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"id": "a", "messages": OPENAI}) + "\n" + '{"id": "b", "query": "q"}\n'
    )
    assert main(["grade", str(rubric), str(bad), "--judge", "fake"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        f"rubricjudge: error: {bad} line 2: missing 'submission' (a line holds 'submission': "
        "text or {thinking, output}, or 'messages': a conversation in OpenAI or Anthropic form)"
    )
    broken = tmp_path / "broken.jsonl"
    msgs = [
        dict(OPENAI[0]),
        {
            "role": "assistant",
            "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": 7}}],
        },
    ]
    broken.write_text(json.dumps({"messages": msgs}) + "\n")
    assert main(["grade", str(rubric), str(broken), "--judge", "fake"]) == 1
    assert capsys.readouterr().err.strip() == (
        f"rubricjudge: error: {broken} line 1: messages[1].tool_calls[0].function.arguments: "
        "expected JSON text or an object, got int"
    )


def test_dataset_items_hold_conversations_and_round_trip(tmp_path: Path) -> None:
    ds = RubricDataset(prompt="p", rubric=facts())
    ds.add_item(submission=OPENAI, id="a", ground_truth=["MET", "MET", "UNMET"])
    ds.add_item(submission="text answer", id="b")
    for name in ("d.jsonl", "d.yaml", "d.json"):
        path = tmp_path / name
        ds.to_file(path)
        back = RubricDataset.from_file(path)
        assert back.items[0].submission == ds.items[0].submission
        assert back.items[1].submission == "text answer"
    text = (tmp_path / "d.jsonl").read_text().splitlines()
    assert '"messages": [' in text[1] and '"submission": "text answer"' in text[2]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        text[0]
        + "\n"
        + json.dumps(
            {"id": "x", "messages": [{"role": "tool", "tool_call_id": "q", "content": "r"}]}
        )
        + "\n"
    )
    with pytest.raises(Exception) as e:
        RubricDataset.from_file(bad)
    assert str(e.value) == (
        f"{bad} line 2: items[0].messages[0].tool_call_id: 'q' answers no tool call before it; "
        "give the id of an earlier call (tool_calls[].id, or a tool_use block's id)"
    )
    both = tmp_path / "both.jsonl"
    both.write_text(text[0] + "\n" + json.dumps({"submission": "x", "messages": OPENAI}) + "\n")
    with pytest.raises(
        Exception, match=r"line 2: items\[0\]: give 'submission' or 'messages', not both"
    ):
        RubricDataset.from_file(both)


def test_the_trl_reward_grades_the_whole_conversation(chat_server: ChatServer) -> None:
    chat_server.handler = reader
    reward = RubricReward(facts(), CriterionGrader(judge(chat_server), evidence="off"))
    prompt = OPENAI[:2]
    completion = OPENAI[2:]  # tool calls and results included, as TRL's tool-using trainers pass
    out = reward(prompts=[prompt], completions=[completion])
    assert out == [pytest.approx(2 / 3)]
    block, _ = parts(chat_server.chat_requests[0].json)
    assert block.startswith("#1 system: ") and SECRET_RESULT in block and SECRET_ARGUMENT in block


@pytest.mark.local_model
@pytest.mark.timeout(900)
def test_the_local_judge_grades_a_trajectory_end_to_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    monkeypatch.setenv("RUBRICJUDGE_CACHE_DIR", str(tmp_path / "cache"))

    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    rubric = Rubric(
        [
            Criterion(
                name="reservation",
                requirement="The assistant tells the user the reservation code ZX9.",
                scope="final_assistant_turn",
            ),
            Criterion(
                name="ends",
                requirement="ends with the assistant",
                scoring_method={
                    "type": "trajectory",
                    "trajectory": {"check": "ends_with_assistant"},
                },
            ),
        ]
    )
    report = CriterionGrader("local", evidence="off").grade_sync(rubric, OPENAI)
    judged, exact = report.report
    assert judged.error is None and judged.verdict is MET
    assert exact.verdict is MET and report.judge_calls == 1
    record = report.metadata["conversation"]
    assert record["budget_tokens"] == 2496 and record["tokens"] < 2496
