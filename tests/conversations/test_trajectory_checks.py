"""Exact trajectory criteria on hand-made trajectories: no judge call, scored like any other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import Criterion, CriterionGrader, CriterionVerdict, FakeJudge, Rubric
from rubricjudge._cli.main import main
from rubricjudge.conversations import json_subset
from rubricjudge.errors import RubricError
from tests.support.trajectories import OPENAI, trajectory

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS


def exact(name: str, weight: float = 1.0, **check: Any) -> Criterion:
    return Criterion(
        name=name,
        requirement=f"check {name}",
        weight=weight,
        scoring_method={"type": "trajectory", "trajectory": check},
    )


def grade(criteria: list[Criterion], submission: Any) -> Any:
    judge = FakeJudge()
    report = CriterionGrader(judge=judge, evidence="off").grade_sync(Rubric(criteria), submission)
    assert judge.requests == [] and report.judge_calls == 0  # no judge is ever asked
    return report


LOOKUP_THEN_BOOK = trajectory(
    ("user", "book it"),
    ("call", ("get_user_details", {"user_id": "u1"})),
    ("result", "{}"),
    ("call", ("book_reservation", {"user_id": "u1", "cabin": "economy", "amount": 120})),
    ("result", "ok"),
    ("call", ("get_user_details", {"user_id": "u1"})),
    ("result", "{}"),
    ("assistant", "done"),
)
BOOK_FIRST = trajectory(
    ("user", "book it"),
    ("call", ("book_reservation", {"user_id": "u1", "cabin": "business"})),
    ("result", "ok"),
    ("call", ("get_user_details", {"user_id": "u1"})),
)


@pytest.mark.parametrize(
    ("check", "on_good", "on_bad"),
    [
        ({"check": "tool_called", "tool": "book_reservation"}, MET, MET),
        ({"check": "tool_called", "tool": "cancel_reservation"}, UNMET, UNMET),
        ({"check": "tool_not_called", "tool": "cancel_reservation"}, MET, MET),
        ({"check": "tool_not_called", "tool": "get_user_details"}, UNMET, UNMET),
        (
            {"check": "called_before", "tool": "get_user_details", "before": "book_reservation"},
            MET,
            UNMET,
        ),
        ({"check": "called_before", "tool": "get_user_details", "before": "cancel"}, MET, MET),
        ({"check": "max_calls", "tool": "get_user_details", "max": 1}, UNMET, MET),
        ({"check": "max_calls", "max": 2}, UNMET, MET),
        (
            {"check": "called_with", "tool": "book_reservation", "arguments": {"cabin": "economy"}},
            MET,
            UNMET,
        ),
        (
            {"check": "called_with", "tool": "book_reservation", "pattern": '"cabin": "bus'},
            UNMET,
            MET,
        ),
        (
            {
                "check": "called_with",
                "tool": "book_reservation",
                "arguments": {"amount": 120.0},
                "pattern": "economy",
            },
            MET,
            UNMET,
        ),
        ({"check": "ends_with_assistant"}, MET, UNMET),
    ],
)
def test_each_check_on_hand_made_trajectories(
    check: dict[str, Any], on_good: CriterionVerdict, on_bad: CriterionVerdict
) -> None:
    for conv, want in ((LOOKUP_THEN_BOOK, on_good), (BOOK_FIRST, on_bad)):
        report = grade([exact("c", **check)], conv)
        cr = report.report[0]
        assert cr.verdict is want, (check, conv[1])
        assert cr.error is None and cr.notes.endswith("yes" if want is MET else "no")
        assert report.score == (1.0 if want is MET else 0.0)


def test_scored_like_any_other_criterion_with_penalties_and_evidence() -> None:
    criteria = [
        exact(
            "order", 3.0, check="called_before", tool="get_user_details", before="book_reservation"
        ),
        exact(
            "insured",
            -2.0,
            check="called_with",
            tool="book_reservation",
            arguments={"insurance": "no"},
        ),
        exact("ends", 1.0, check="ends_with_assistant"),
    ]
    report = grade(criteria, OPENAI)
    assert [cr.verdict for cr in report.report] == [MET, MET, MET]
    # (3 + 1 - 2) / 4: the penalty's MET means its fault is there, as everywhere
    assert report.score == pytest.approx(0.5) and report.raw_score == pytest.approx(2.0)
    assert report.report[1].evidence == ["call 3: book_reservation at #9"]
    assert report.report[0].evidence == [
        "call 1: get_user_details at #3",
        "call 3: book_reservation at #9",
    ]


def test_json_subset_semantics() -> None:
    got = {"a": 1, "flights": [{"n": "X", "d": 1}, {"n": "Y"}], "t": True}
    assert json_subset({"a": 1.0}, got) and json_subset({"flights": [{"n": "Y"}]}, got)
    assert json_subset({"flights": [{"n": "Y"}, {"n": "X"}]}, got)  # order does not matter
    assert not json_subset({"flights": [{"n": "Z"}]}, got)
    assert not json_subset({"t": 1}, got) and not json_subset({"a": True}, {"a": 1})
    assert not json_subset({"missing": None}, got) and json_subset([], [1])


def test_a_text_submission_or_a_runaway_pattern_is_a_recorded_error() -> None:
    report = grade([exact("c", check="tool_called", tool="x")], "just text")
    cr = report.report[0]
    assert cr.verdict is CA and cr.error_category == "input" and "not a conversation" in cr.error
    assert report.score is None and report.error_count == 1
    slow = exact("slow", check="called_with", tool="f", pattern="(a|aa)+$")
    conv = trajectory(("call", ("f", {"s": "a" * 40 + "!"})))
    cr = grade([slow], conv).report[0]
    assert cr.verdict is CA and cr.error is not None and "took over 0.5 s" in cr.error


def test_bad_checks_are_errors_naming_the_criterion(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="criterion 'c'.*needs 'before'"):
        exact("c", check="called_before", tool="a")
    with pytest.raises(Exception, match="takes no 'max'"):
        exact("c", check="tool_called", tool="a", max=2)
    with pytest.raises(Exception, match="not a regular expression"):
        exact("c", check="called_with", tool="a", pattern="(")
    with pytest.raises(Exception, match="decides MET or UNMET"):
        Criterion(
            requirement="x",
            options=[{"label": "a", "value": 1}],
            scoring_method={"type": "trajectory", "trajectory": {"check": "ends_with_assistant"}},
        )
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "format: rubricjudge/1\ncriteria:\n- name: order\n  requirement: x\n"
        "  scoring_method:\n    type: trajectory\n    trajectory: {check: called_befor, tool: a}\n"
        "- name: turns\n  requirement: y\n  turn_aggregation: mean\n"
    )
    with pytest.raises(RubricError) as e:
        Rubric.from_file(bad)
    text = str(e.value)
    assert "criteria[0].scoring_method.trajectory.check" in text and "'called_before'" in text
    assert "criteria[1]" in text and "turn_aggregation applies only with scope" in text


def test_the_schema_and_the_native_format_carry_checks_and_scopes(
    tmp_path: Path, capsys: Any
) -> None:
    rubric = Rubric(
        [
            exact("order", check="called_before", tool="a", before="b"),
            Criterion(
                name="t",
                requirement="polite",
                scope="every_assistant_turn",
                turn_aggregation="mean",
            ),
        ]
    )
    path = tmp_path / "r.yaml"
    rubric.to_file(path)
    assert Rubric.from_file(path) == rubric
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    check = schema["$defs"]["TrajectoryCheck"]["properties"]
    assert set(check) == {"check", "tool", "before", "max", "arguments", "pattern"}
    props = schema["$defs"]["Criterion"]["properties"]
    assert "scope" in props and "turn_aggregation" in props
    import jsonschema_rs

    assert jsonschema_rs.validator_for(schema).is_valid(rubric.to_dict())


def test_autorubric_order_and_the_budget_flags(tmp_path: Path, capsys: Any) -> None:
    rubric = Rubric([exact("ends", check="ends_with_assistant")])
    grader = CriterionGrader(judge=FakeJudge())
    assert grader.grade_sync(OPENAI, rubric).report[0].verdict is MET  # (to_grade, rubric)
    with pytest.raises(Exception, match="conversation_budget 0 must be a whole number"):
        CriterionGrader(judge=FakeJudge(), conversation_budget=0)
    with pytest.raises(Exception, match="over_budget 'drop' is not 'error' or 'elide'"):
        CriterionGrader(judge=FakeJudge(), over_budget="drop")
    path = tmp_path / "r.yaml"
    rubric.to_file(path)
    lines = tmp_path / "in.jsonl"
    lines.write_text(json.dumps({"messages": OPENAI}) + "\n")
    args = ["grade", str(path), str(lines), "--judge", "fake"]
    assert main([*args, "--conversation-budget", "0"]) == 1
    assert "--conversation-budget 0 must be at least 1 token" in capsys.readouterr().err
    judged = Rubric([Criterion(name="j", requirement="polite")])
    judged.to_file(path)
    assert main([*args, "--conversation-budget", "50", "--dry-run"]) == 0
    assert "0 judge calls" in capsys.readouterr().err  # over the budget: nothing would be asked
    assert main([*args, "--conversation-budget", "150", "--over-budget", "elide", "--dry-run"]) == 0
    assert "1 judge calls" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["dataknobs", "openrubricrl"])
def test_converting_refuses_checks_and_scopes(target: str, tmp_path: Path, capsys: Any) -> None:
    rubric = Path(__file__).parents[2] / "examples" / "tau_bench" / "airline_agent.yaml"
    out = tmp_path / "out.yaml"
    assert main(["convert", str(rubric), "--to", target, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "scoring method 'trajectory' has no" in err
    assert "scope 'final_assistant_turn' has no" in err
    assert not out.exists()
