"""Group ranking through the real HTTP path, the CLI, and the TRL-style group reward."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import ConfigError, Criterion, Rubric
from rubricjudge._cli.main import main
from rubricjudge._model._group import rank_by
from rubricjudge.graders import GroupRanker
from rubricjudge.rewards import GroupRankReward, RewardError
from tests.support.chat_server import ChatServer, Reply
from tests.support.judge_helpers import openai_judge
from tests.support.pairwise_helpers import grade, is_pairwise, read_lines, shown_answers, user_text

RUBRIC = Rubric(
    [
        Criterion(name="paris", weight=2, requirement="Names Paris"),
        Criterion(name="why", weight=1, requirement="Says why"),
    ]
)
GROUP = ["Paris.", "Lyon.", "Paris, because the king lived there.", "Paris!"]


def _judge(body: Any) -> Reply:
    """Per criterion: by the words; pairwise: the longer answer; listwise: by length."""
    schema = body["response_format"]["json_schema"]["name"]
    if schema == "listwise_ranking":
        shown = shown_answers(body)
        order = sorted(range(len(shown)), key=lambda k: -len(shown[k]))
        return Reply.json({"ranking": [k + 1 for k in order]})
    if is_pairwise(body):
        first, second = shown_answers(body)
        pick = "tie" if len(first) == len(second) else "1" if len(first) > len(second) else "2"
        return Reply.json({"reason": "r", "answer": pick})
    text = user_text(body)
    sub = text.split("<submission-", 1)[1].split(">", 1)[1].split("</submission-", 1)[0]
    asked = text.rsplit("Statement about the submission: ", 1)[1]
    yes = "Paris" in sub if asked.startswith("Names Paris") else "because" in sub
    return Reply.json({"reason": "r", "answer": "yes" if yes else "no"})


def test_rank_by_gives_win_rates_and_shared_ranks() -> None:
    rewards, ranks = rank_by([3.0, 1.0, 3.0, None, 2.0])
    assert rewards == [pytest.approx(5 / 6), 0.0, pytest.approx(5 / 6), None, pytest.approx(1 / 3)]
    assert ranks == [1.5, 4.0, 1.5, None, 3.0]
    assert rank_by([7.0]) == ([0.5], [1.0])


def test_criteria_scores_then_pairwise_tie_breaks(chat_server: ChatServer) -> None:
    chat_server.handler = _judge
    ranker = GroupRanker(openai_judge(chat_server), evidence="off")
    report = ranker.rank_sync(RUBRIC, GROUP, query="Capital of France?", item_id="g")
    # scores: Paris. 2/3, Lyon. 0, the reason 1, Paris! 2/3: two tie, broken pairwise
    assert report.scores == [pytest.approx(2 / 3), 0.0, 1.0, pytest.approx(2 / 3)]
    assert report.tie_breaks is not None and len(report.tie_breaks) == 1
    tb = report.tie_breaks[0]
    assert (tb.i, tb.j, tb.preferred, tb.position_consistent) == (0, 3, "tie", True)
    assert report.ranks == [2.5, 4.0, 1.0, 2.5]
    assert report.rewards == [pytest.approx(0.5), 0.0, 1.0, pytest.approx(0.5)]
    compared = [r for r in chat_server.chat_requests if is_pairwise(r.json)]
    assert sorted(tuple(shown_answers(r.json)) for r in compared) == [
        ("Paris!", "Paris."),
        ("Paris.", "Paris!"),
    ]
    assert report.judge_calls == 4 * 2 + 2


def test_a_tie_break_decides_between_equal_scores(chat_server: ChatServer) -> None:
    chat_server.handler = _judge
    ranker = GroupRanker(openai_judge(chat_server), evidence="off")
    report = ranker.rank_sync(RUBRIC, ["Paris.", "Paris, yes."])
    assert report.scores == [pytest.approx(2 / 3)] * 2
    assert report.rewards == [0.0, 1.0] and report.ranks == [2.0, 1.0]


def test_listwise_asks_in_two_orders(chat_server: ChatServer) -> None:
    chat_server.handler = _judge
    ranker = GroupRanker(openai_judge(chat_server), method="listwise")
    report = ranker.rank_sync(RUBRIC, GROUP, query="Capital of France?")
    assert [a.shown for a in report.listwise or []] == [[0, 1, 2, 3], [3, 2, 1, 0]]
    # the judge keeps equal lengths in the order shown; the reversed order cancels that out
    assert [a.ranking for a in report.listwise or []] == [[2, 0, 3, 1], [2, 3, 0, 1]]
    assert report.rewards == [0.5, 0.0, 1.0, 0.5]
    assert report.ranks == [2.5, 4.0, 1.0, 2.5]
    assert len(chat_server.chat_requests) == 2


def test_a_listwise_reply_that_is_no_ranking_is_an_error(chat_server: ChatServer) -> None:
    chat_server.handler = lambda body: Reply.json({"ranking": [1, 1, 2]})
    judge = openai_judge(chat_server, max_parse_retries=0)
    report = GroupRanker(judge, method="listwise").rank_sync(RUBRIC, ["a", "b", "c"])
    assert report.rewards == [None, None, None]
    assert report.error is not None and "does not name each answer" in report.error


def test_group_cli_writes_rewards_and_ranks(
    tmp_path: Path, chat_server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = _judge
    rubric = (
        "- name: paris\n  weight: 2\n  requirement: Names Paris\n"
        "- name: why\n  weight: 1\n  requirement: Says why\n"
    )
    groups = tmp_path / "g.jsonl"
    groups.write_text(
        json.dumps({"id": "g1", "query": "Capital?", "submissions": GROUP}) + "\n"
        + json.dumps({"id": "g2", "submissions": ["Lyon."]}) + "\n"
    )  # fmt: skip
    out = tmp_path / "out.jsonl"
    args = (str(groups), "--group", "--evidence", "off", "-o", str(out))
    assert grade(tmp_path, chat_server, *args, rubric=rubric) == 0
    g1, g2 = read_lines(out)
    assert g1["id"] == "g1" and g1["ranks"] == [2.5, 4.0, 1.0, 2.5]
    assert "reports" not in g1 and len(g1["scores"]) == 4
    assert g2["rewards"] == [0.5] and g2["ranks"] == [1.0]
    assert "ranked 2 groups (criteria)" in capsys.readouterr().err
    out2 = tmp_path / "out2.jsonl"
    args = (str(groups), "--group", "--group-method", "listwise", "-o", str(out2))
    assert grade(tmp_path, chat_server, *args, rubric=rubric) == 0
    assert read_lines(out2)[0]["ranks"][2] == 1.0


def test_a_listwise_failure_says_why_on_stderr(
    tmp_path: Path, chat_server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # it said "see the errors above", and nothing above said why: the reason was only in
    # the -o file, which a run that ranked nothing leaves as it was
    chat_server.handler = lambda body: Reply.json({"ranking": [1, 1]})
    groups = tmp_path / "g.jsonl"
    groups.write_text(json.dumps({"id": "g1", "submissions": ["Paris.", "Lyon."]}) + "\n")
    out = tmp_path / "out.jsonl"
    args = (str(groups), "--group", "--group-method", "listwise", "-o", str(out))
    assert grade(tmp_path, chat_server, *args) == 1
    err = capsys.readouterr().err
    assert "groups not ranked: 1" in err and "g1: " in err
    assert "does not name each answer" in err.split("see the errors above")[0]


def test_group_input_errors_name_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text("- name: a\n  weight: 1\n  requirement: States A\n")
    bad = tmp_path / "g.jsonl"
    bad.write_text('{"id": "1", "submissions": ["x"]}\n{"id": "2", "submission": "y"}\n')
    assert main(["grade", str(rubric), str(bad), "--group", "--judge", "fake"]) == 1
    err = capsys.readouterr().err
    assert "g.jsonl line 2: 'submissions' is missing; --group needs a list" in err
    bad.write_text('{"id": "1", "submissions": []}\n')
    assert main(["grade", str(rubric), str(bad), "--group", "--judge", "fake"]) == 1
    assert "'submissions' is an empty list" in capsys.readouterr().err
    bad.write_text('{"id": "1", "submissions": ["x"]}\n')
    for extra in (["--run-dir", str(tmp_path / "run")], ["--pairwise"]):
        assert main(["grade", str(rubric), str(bad), "--group", "--judge", "fake", *extra]) == 1
    err = capsys.readouterr().err
    assert "--run-dir cannot be used with --group yet" in err
    assert "give --pairwise or --group, not both" in err


def test_the_group_reward_ranks_each_prompts_completions(chat_server: ChatServer) -> None:
    chat_server.handler = _judge
    ranker = GroupRanker(openai_judge(chat_server), evidence="off")
    reward = GroupRankReward(RUBRIC, ranker)
    prompts = ["Capital of France?"] * 3 + [[{"role": "user", "content": "And of Italy?"}]] * 2
    completions = [
        "Paris.",
        "Lyon.",
        "Paris, because the king lived there.",
        [{"role": "assistant", "content": "Rome."}],
        [{"role": "assistant", "content": "Paris, because."}],
    ]
    rewards = reward(prompts=prompts, completions=completions, completion_ids=[[1]] * 5)
    assert rewards == [0.5, 0.0, 1.0, 0.0, 1.0]
    assert reward.__name__ == "group_rank_reward"
    assert reward.stats.completions == 5 and reward.stats.failures == 0
    assert [r.id for r in reward.last_reports] == ["group 0", "group 3"]


def test_the_group_reward_failure_policies(chat_server: ChatServer) -> None:
    chat_server.handler = lambda body: Reply.server_error(headers={"Retry-After": "0"})
    judge = openai_judge(chat_server, max_retries=0)
    ranker = GroupRanker(judge, method="listwise")
    prompts, completions = ["q", "q"], ["a", "b"]
    assert GroupRankReward(RUBRIC, ranker)(prompts=prompts, completions=completions) == [
        None,
        None,
    ]
    valued = GroupRankReward(RUBRIC, ranker, failure_policy="value", failure_value=-1.0)
    assert valued(prompts=prompts, completions=completions) == [-1.0, -1.0]
    with pytest.raises(RewardError, match="2 of 2 completions could not be placed"):
        GroupRankReward(RUBRIC, ranker, failure_policy="raise")(
            prompts=prompts, completions=completions
        )
    with pytest.raises(ConfigError, match="2 prompts for 1 completions"):
        GroupRankReward(RUBRIC, ranker)(prompts=prompts, completions=["a"])
