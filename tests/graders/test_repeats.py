"""Repeated judgments: the variation between repeats, the majority, the flip rate."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import ConfigError, Criterion, CriterionGrader, Rubric
from rubricjudge._cli.main import main
from rubricjudge.graders import GroupRanker, PerCriterionOneShotGrader
from rubricjudge.judges import FakeJudge
from rubricjudge.rewards import compute_reward_variance
from tests.support.chat_server import ChatServer, Reply
from tests.support.pairwise_helpers import grade, read_lines, statement, user_text, write_pairs

RUBRIC = """\
format: rubricjudge/1
name: sky
criteria:
- name: cause
  requirement: Names Rayleigh scattering.
  weight: 10
- name: colour
  requirement: Says blue light scatters more than red.
  weight: 5
- name: myth
  requirement: Claims the sky reflects the ocean.
  weight: -5
"""


class Flipper:
    """Answers each question yes, then no, then yes ...: it flips on every other call."""

    def __init__(self, first: str = "yes", second: str = "no") -> None:
        self.seen: dict[str, int] = {}
        self.lock = threading.Lock()
        self.answers = (first, second)

    def __call__(self, body: Any) -> Reply:
        with self.lock:
            n = self.seen.get(user_text(body), 0)
            self.seen[user_text(body)] = n + 1
        return Reply.json({"reason": "r", "answer": self.answers[n % 2]})


def _answers(tmp_path: Path, n: int = 3) -> Path:
    path = tmp_path / "answers.jsonl"
    rows = [{"id": f"s{i}", "submission": f"Answer {i}: scattering."} for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("repeats", [2, 4])
def test_a_judge_that_flips_on_every_other_call_has_a_flip_rate_of_half(
    tmp_path: Path, chat_server: ChatServer, capsys: pytest.CaptureFixture[str], repeats: int
) -> None:
    chat_server.handler = Flipper()
    out = tmp_path / "out.jsonl"
    args = (str(_answers(tmp_path)), "--repeats", str(repeats), "--evidence", "off")
    assert grade(tmp_path, chat_server, *args, "-o", str(out), rubric=RUBRIC) == 0
    reports = read_lines(out)
    assert len(chat_server.chat_requests) == 3 * 3 * repeats
    for r in reports:
        assert r["judge_calls"] == 3 * repeats
        for c in r["report"]:
            st = c["stability"]
            assert st["flip_rate"] == 0.5
            assert st["repeats"] == repeats and st["answers"].count("MET") == repeats // 2
            assert st["variation"] == "temperature" and st["temperature"] == 0.7
        # a tie goes to the verdict that scores lowest: UNMET for a positive weight, MET
        # for a penalty (as in ensembles)
        assert [c["verdict"] for c in r["report"]] == ["UNMET", "UNMET", "MET"]
    sampled = {(b.json["temperature"], b.json["seed"]) for b in chat_server.chat_requests}
    assert sampled == {(0.7, k) for k in range(repeats)}
    err = capsys.readouterr().err
    assert "least stable criteria (mean flip rate over repeats):" in err
    assert "  cause: 0.500 over 3 items" in err


def test_a_steady_judge_has_a_flip_rate_of_zero(tmp_path: Path, chat_server: ChatServer) -> None:
    chat_server.handler = lambda body: Reply.json({"reason": "r", "answer": "yes"})
    out = tmp_path / "out.jsonl"
    args = (str(_answers(tmp_path, 1)), "--repeats", "3", "--evidence", "off", "-o", str(out))
    assert grade(tmp_path, chat_server, *args, rubric=RUBRIC) == 0
    (r,) = read_lines(out)
    assert {c["stability"]["flip_rate"] for c in r["report"]} == {0.0}
    assert [c["verdict"] for c in r["report"]] == ["MET", "MET", "MET"]


def test_without_temperature_the_order_of_the_answers_varies() -> None:
    judge = FakeJudge(name="fake")  # answers the first allowed value it is shown
    rubric = Rubric([Criterion(name="c", weight=1, requirement="Names Rayleigh scattering")])
    grader = CriterionGrader(judge, repeats=3, evidence="off")
    report = grader.grade_sync(rubric, "Rayleigh scattering.")
    enums = [r.schema["properties"]["answer"]["enum"] for r in judge.requests]
    assert sorted(map(tuple, enums)) == [("no", "yes"), ("yes", "no"), ("yes", "no")]
    assert {r.temperature for r in judge.requests} == {None}
    assert any('"no" | "yes"' in r.user for r in judge.requests)
    (c,) = report.report or []
    assert c.stability is not None and c.stability.variation == "order"
    assert sorted(c.stability.answers) == ["MET", "MET", "UNMET"]
    assert c.stability.flip_rate == pytest.approx(1 / 3)
    assert c.verdict is not None and c.verdict.value == "MET"


def test_options_are_shuffled_per_repeat_and_mapped_back() -> None:
    judge = FakeJudge()  # picks option 1 of whatever order it is shown
    rubric = Rubric(
        [
            Criterion(
                name="clarity",
                weight=1,
                requirement="How clear is it?",
                options=[
                    {"label": "poor", "value": 0},
                    {"label": "fair", "value": 0.5},
                    {"label": "great", "value": 1},
                ],
            )
        ]
    )
    report = CriterionGrader(judge, repeats=4).grade_sync(rubric, "text", item_id="x")
    (c,) = report.report or []
    assert c.stability is not None and len(c.stability.answers) == 4
    assert len(set(c.stability.answers)) > 1  # other orders, other first options
    assert c.selection is not None and c.selection.label in c.stability.answers


def test_an_ensemble_repeats_each_judge(tmp_path: Path) -> None:
    steady = FakeJudge(default={"answer": "yes"}, name="steady")
    flips = iter(["yes", "no"] * 4)
    flippy = FakeJudge(default=lambda req: {"answer": next(flips)}, name="flippy")
    rubric = Rubric([Criterion(name="c", weight=1, requirement="Names Rayleigh scattering")])
    grader = CriterionGrader(judges=[steady, flippy], repeats=2, evidence="off")
    (c,) = grader.grade_sync(rubric, "x").report or []
    assert c.stability is not None and c.stability.flip_rate == pytest.approx(0.25)
    votes = {v.judge_id: v for v in c.votes or []}
    assert votes["steady"].stability is not None and votes["steady"].stability.flip_rate == 0.0
    assert votes["flippy"].stability is not None and votes["flippy"].stability.flip_rate == 0.5


def test_failed_repeats_do_not_vote_and_all_failed_is_an_error(chat_server: ChatServer) -> None:
    from tests.support.judge_helpers import openai_judge

    chat_server.handler = lambda body: Reply.text("no idea")
    judge = openai_judge(chat_server, max_parse_retries=0)
    rubric = Rubric([Criterion(name="c", weight=1, requirement="Names Rayleigh scattering")])
    (c,) = CriterionGrader(judge, repeats=2, evidence="off").grade_sync(rubric, "x").report or []
    assert c.error is not None and c.stability is not None
    assert c.stability.answers == [None, None] and c.stability.flip_rate is None


def test_pairwise_repeats_record_each_orders_flips(tmp_path: Path, chat_server: ChatServer) -> None:
    chat_server.handler = Flipper("1", "2")
    out = tmp_path / "out.jsonl"
    pairs = write_pairs(
        tmp_path / "p.jsonl", [{"id": "p", "submission_a": "Paris.", "submission_b": "Lyon."}]
    )
    assert grade(tmp_path, chat_server, str(pairs), "--pairwise", "--grader", "holistic",
                 "--repeats", "2", "-o", str(out)) == 0  # fmt: skip
    (r,) = read_lines(out)
    (c,) = r["criteria"]
    for order in c["orders"]:
        assert order["stability"]["flip_rate"] == 0.5
        assert order["preferred"] == "tie"  # a draw between a and b is a tie
    assert len(chat_server.chat_requests) == 4
    assert {statement(b.json) for b in chat_server.chat_requests} == {"holistic"}


def test_reward_variance_of_a_flipping_and_a_steady_judge(chat_server: ChatServer) -> None:
    from tests.support.judge_helpers import openai_judge

    rubric = Rubric(
        [
            Criterion(name="a", weight=2, requirement="Names Rayleigh scattering"),
            Criterion(name="b", weight=1, requirement="Mentions wavelength"),
        ]
    )
    items = ["one", "two", "three"]

    def by_repeat(body: Any) -> Reply:
        # the repeats are asked at once, so which call comes first is not fixed: answer by
        # the seed that tells the repeats apart (repeat k asks with seed 0 + k)
        return Reply.json({"reason": "r", "answer": ("yes", "no")[body["seed"] % 2]})

    chat_server.handler = by_repeat
    grader = CriterionGrader(openai_judge(chat_server), repeats=2, evidence="off")
    flipping = asyncio.run(compute_reward_variance(rubric, items, grader=grader))
    assert flipping.items == 3 and flipping.repeats == 2
    # three items x two repeats of 1, 0: the sample variance of [1, 0, 1, 0, 1, 0]
    assert flipping.criteria == {"a": pytest.approx(0.3), "b": pytest.approx(0.3)}
    assert flipping.flip_rates == {"a": 0.5, "b": 0.5}
    # repeat 0 says yes to all (score 1), repeat 1 no to all (score 0)
    assert flipping.score_variance == pytest.approx(0.25)
    chat_server.handler = lambda body: Reply.json({"answer": "yes", "reason": "r"})
    steady = asyncio.run(compute_reward_variance(rubric, items, grader=grader))
    assert steady.criteria == {"a": 0.0, "b": 0.0} and steady.score_variance == 0.0


def test_repeat_settings_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigError, match="repeats 0 must be"):
        CriterionGrader("fake", repeats=0)
    with pytest.raises(ConfigError, match="repeat_temperature 0"):
        CriterionGrader("fake", repeats=2, repeat_temperature=0)
    with pytest.raises(ConfigError, match="repeat_variation 'dice'"):
        CriterionGrader("fake", repeats=2, repeat_variation="dice")
    with pytest.raises(ConfigError, match="not one-shot"):
        PerCriterionOneShotGrader("fake", repeats=2)
    with pytest.raises(ConfigError, match="a listwise ranking is asked once"):
        GroupRanker("fake", method="listwise", repeats=2)
    rubric = tmp_path / "r.yaml"
    rubric.write_text(RUBRIC)
    answers = _answers(tmp_path, 1)
    assert main(["grade", str(rubric), str(answers), "--judge", "fake", "--repeats", "0"]) == 1
    assert "--repeats 0 must be at least 1" in capsys.readouterr().err
    args = ["grade", str(rubric), str(answers), "--judge", "fake", "--repeats", "2"]
    assert main([*args, "--grader", "holistic"]) == 1
    assert "--repeats works with --grader per-criterion" in capsys.readouterr().err


def test_evaluate_repeats_and_metrics_and_report_list_the_least_stable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    args = ["evaluate", "example:llm_rubric_microsoft", "--judge", "fake", "--max-items", "4"]
    assert main([*args, "--repeats", "3", "--run-dir", str(run), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["flip_rates"] and all(0 <= v <= 2 / 3 for v in summary["flip_rates"].values())
    rates = list(summary["flip_rates"].values())
    assert rates == sorted(rates, reverse=True)
    assert main(["metrics", str(run)]) == 0
    assert "least stable criteria (mean flip rate over repeats):" in capsys.readouterr().out
    html = tmp_path / "r.html"
    assert main(["report", str(run), "-o", str(html)]) == 0
    page = html.read_text()
    assert "<h2>Least stable criteria</h2>" in page
    worst = next(iter(summary["flip_rates"]))
    assert f"<th scope='row'>{worst}</th><td>{summary['flip_rates'][worst]:.3f}" in page
