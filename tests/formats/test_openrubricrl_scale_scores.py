"""Criteria scored on a scale (OpenRubricRL's per-criterion scores): files, verdicts, graders.

OpenRubricRL asks its judge for each criterion's score on the rubric's scale and takes
their weighted average; a criterion with ``scored_on_scale: true`` is scored that way
here, through every path that scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import ConfigError, Criterion, Rubric, RubricError, Scale, VerdictError
from rubricjudge._cli.main import main
from rubricjudge._formats._load import load_data, validate_data
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._graders._ensemble import JudgeSpec
from rubricjudge._graders._holistic import RubricAsJudgeGrader
from rubricjudge._graders._oneshot import PerCriterionOneShotGrader
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._model._scoring import finalize, reports_from_verdicts
from rubricjudge._rewards._reward import RubricReward

DATA = Path(__file__).parents[1] / "data" / "openrubricrl"
SCORED = DATA / "scored_on_scale.json"


def _rubric() -> Rubric:
    return Rubric.from_file(SCORED)


# -- files -----------------------------------------------------------------------------
def test_flag_puts_the_rubric_scale_on_the_criterion() -> None:
    rubric = _rubric()
    scales = [c.scale for c in rubric.criteria]
    assert scales[0] == scales[1] == rubric.scale and scales[2] is None
    assert rubric.criteria[0].is_scored_on_scale and rubric.criteria[2].is_binary


def test_round_trips_through_native_and_openrubricrl(tmp_path: Path) -> None:
    rubric = _rubric()
    for fmt in ("native", "openrubricrl"):
        path = tmp_path / f"r.{fmt}.yaml"
        rubric.to_file(path, format=fmt)
        again = Rubric.from_file(path)
        assert [c.scale for c in again.criteria] == [c.scale for c in rubric.criteria]
    data = rubric.to_dict(format="openrubricrl")
    assert [c.get("scored_on_scale") for c in data["criteria"]] == [True, True, None]


def test_converters_refuse_what_they_cannot_express() -> None:
    own = Rubric(
        [Criterion(name="a", description="d", weight=1.0, scale=Scale(min=1, max=5))],
        scale=Scale(min=0, max=10),
    )
    with pytest.raises(ConfigError, match="own scale 1 to 5"):
        own.to_dict(format="openrubricrl")
    with pytest.raises(ConfigError, match="scored on a scale"):
        _rubric().to_dict(format="dataknobs")


def test_file_problems_name_their_path() -> None:
    base: dict[str, Any] = {"name": "n", "version": "1.0.0", "scale": {"min": 0, "max": 10}}
    sub = [{"name": "s", "description": "e"}]
    bad = {
        **base,
        "criteria": [
            {"name": "a", "description": "d", "weight": 0.5, "scored_on_scale": "yes"},
            {
                "name": "b",
                "description": "d",
                "weight": 0.5,
                "scored_on_scale": True,
                "subcriteria": sub,
            },
        ],
    }
    found = {p.path: p.message for p in validate_data(bad, format="openrubricrl")}
    assert "expected true or false, got 'yes'" in found["criteria[0].scored_on_scale"]
    assert "remove its subcriteria" in found["criteria[1].scored_on_scale"]
    native = {
        "criteria": [
            {"requirement": "r", "scale": {"min": 0, "max": 5}, "options": [{"label": "x"}]}
        ]
    }
    with pytest.raises(RubricError, match="no options or subcriteria"):
        load_data(native, format="native")


# -- verdicts ----------------------------------------------------------------------------
def test_numeric_verdicts_score_as_openrubricrl() -> None:
    rubric = _rubric()
    verdicts = {"correctness": 9, "style": 7.5, "has_docstring": "MET"}
    report = finalize(rubric, reports_from_verdicts(rubric, verdicts))
    # OpenRubricRL: overall = 0.5 * 9 + 0.3 * 7.5 + 0.2 * 10 (a met binary is the top)
    assert report.overall_score == pytest.approx(8.75)
    assert report.score == pytest.approx(0.875)
    assert [r.criterion_score for r in report.report or []] == [9.0, 7.5, None]
    assert rubric.compute_score([9, "7.5", True]) == pytest.approx(0.875)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (12, "score 12.0 is outside the scale 0 to 10"),
        (-0.5, "score -0.5 is outside the scale 0 to 10"),
        ("MET", "is not a number; the criterion is scored on the scale 0 to 10"),
        (True, "is not a number"),
        ("nan", "outside the scale"),
    ],
)
def test_off_scale_verdicts_are_errors_naming_the_key(value: Any, message: str) -> None:
    rubric = _rubric()
    verdicts = {"correctness": value, "style": 5, "has_docstring": "MET"}
    with pytest.raises(VerdictError) as info:
        reports_from_verdicts(rubric, verdicts)
    assert str(info.value).startswith("verdicts['correctness']: ")
    assert message in str(info.value)


def test_discrete_scale_takes_whole_numbers_only() -> None:
    rubric = Rubric(
        [
            Criterion(
                name="a", description="d", weight=1.0, scale=Scale(min=1, max=5, type="discrete")
            )
        ]
    )
    assert rubric.compute_score({"a": 4}) == pytest.approx(0.75)
    with pytest.raises(VerdictError, match="3.5 is not a whole number"):
        rubric.compute_score({"a": 3.5})
    assert rubric.compute_score({"a": "CANNOT_ASSESS"}) is None


def test_score_command_reads_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    verdicts = tmp_path / "v.json"
    verdicts.write_text(json.dumps({"correctness": 9, "style": 7.5, "has_docstring": "MET"}))
    assert main(["score", str(SCORED), "--verdicts", str(verdicts)]) == 0
    out = capsys.readouterr().out
    assert "score: 0.875" in out and "on the scale: 8.75" in out
    assert "7.5 on the scale (0.75)" in out
    verdicts.write_text(json.dumps({"correctness": 11, "style": 7.5, "has_docstring": "MET"}))
    code = main(["score", str(SCORED), "--verdicts", str(verdicts)])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert f"{verdicts}: verdicts['correctness']: criterion 'correctness': score 11.0" in err
    assert "never clamped" in err


# -- graders -----------------------------------------------------------------------------
def _replies(*scores: Any) -> list[dict[str, Any]]:
    return [{"reason": "r", "score": s} for s in scores] + [{"reason": "r", "answer": "yes"}]


def test_judge_is_asked_for_a_number_on_the_scale() -> None:
    judge = FakeJudge(_replies(9, "7.5"))
    report = CriterionGrader(judge=judge).grade_sync(_rubric(), "def f(): pass")
    asked = judge.requests[0]
    assert "Score it with a number from 0 to 10" in asked.user
    assert asked.schema is not None
    assert asked.schema["properties"]["score"] == {
        "type": "number",
        "minimum": 0.0,
        "maximum": 10.0,
    }
    assert asked.decision is None  # no token probabilities over a number
    assert report.score == pytest.approx(0.875) and report.overall_score == pytest.approx(8.75)
    assert report.report is not None and report.report[1].criterion_score == 7.5


def test_discrete_scale_asks_for_whole_numbers() -> None:
    rubric = Rubric(
        [
            Criterion(
                name="a", description="d", weight=1.0, scale=Scale(min=1, max=5, type="discrete")
            )
        ],
        scale=Scale(min=1, max=5, type="discrete"),
    )
    judge = FakeJudge([{"reason": "r", "score": 4}])
    report = CriterionGrader(judge=judge).grade_sync(rubric, "x")
    assert "a whole number from 1 to 5" in judge.requests[0].user
    assert judge.requests[0].schema["properties"]["score"]["type"] == "integer"  # type: ignore[index]
    assert report.overall_score == 4.0


@pytest.mark.parametrize("bad", [11, -1, "high", None])
def test_a_judge_off_the_scale_is_a_failure_never_clamped(bad: Any) -> None:
    rubric = _rubric()
    report = CriterionGrader(judge=FakeJudge(_replies(bad, 5))).grade_sync(rubric, "x")
    first = (report.report or [])[0]
    assert first.is_error and first.error_category == "parse"
    assert first.scale_score is None and first.verdict is not None
    assert first.verdict.value == "CANNOT_ASSESS"  # not scored
    # a failure is not CANNOT_ASSESS: no score (it was skipped, scoring 0.7, before)
    assert report.score is None and report.error is not None


def test_a_criterion_whose_judge_failed_is_not_scored() -> None:
    rubric = Rubric([Criterion(name="a", description="d", weight=1.0, scale=Scale(max=10))])
    report = CriterionGrader(judge=FakeJudge([{"reason": "r", "score": 99}])).grade_sync(
        rubric, "x"
    )
    assert report.score is None and report.error is not None
    fallback = CriterionGrader(
        judge=FakeJudge([{"reason": "r", "score": 99}]),
        default_fallback_verdicts={"positive": "UNMET", "negative": "MET"},
    ).grade_sync(rubric, "x")
    assert fallback.score == 0.0  # the fallback asked for: the bottom of the scale
    assert (fallback.report or [])[0].criterion_score == 0.0


def test_ensemble_takes_the_weighted_mean() -> None:
    rubric = Rubric([Criterion(name="a", description="d", weight=1.0, scale=Scale(max=10))])
    judges = [
        JudgeSpec(FakeJudge([{"reason": "r", "score": 6}]), id="j1", weight=1.0),
        JudgeSpec(FakeJudge([{"reason": "r", "score": 9}]), id="j2", weight=2.0),
    ]
    report = CriterionGrader(judges=judges).grade_sync(rubric, "x")
    only = (report.report or [])[0]
    assert only.criterion_score == pytest.approx(8.0)
    assert [v.scale_score.score for v in only.votes or [] if v.scale_score] == [6.0, 9.0]
    median = rubric.model_copy(
        update={"criteria": [rubric.criteria[0].model_copy(update={"aggregation": "median"})]}
    )
    judges3 = [JudgeSpec(FakeJudge([{"reason": "r", "score": s}]), id=f"j{s}") for s in (1, 2, 9)]
    assert CriterionGrader(judges=judges3).grade_sync(median, "x").score == pytest.approx(0.2)
    majority = rubric.model_copy(
        update={"criteria": [rubric.criteria[0].model_copy(update={"aggregation": "majority"})]}
    )
    with pytest.raises(ConfigError, match="does not apply to a scale criterion"):
        CriterionGrader(judges=judges3).grade_sync(majority, "x")


def test_one_shot_and_holistic_graders() -> None:
    reply = {
        "1": {"reason": "r", "score": 9},
        "2": {"reason": "r", "score": 7.5},
        "3": {"reason": "r", "answer": "yes"},
    }
    judge = FakeJudge([reply])
    report = PerCriterionOneShotGrader(judge=judge).grade_sync(_rubric(), "x")
    assert report.overall_score == pytest.approx(8.75)
    assert "Score it with a number from 0 to 10" in judge.requests[0].user
    holistic = FakeJudge([{"reason": "r", "score": 80}])
    report = RubricAsJudgeGrader(judge=holistic).grade_sync(_rubric(), "x")
    assert report.overall_score == pytest.approx(8.0)
    assert "as far as the submission does it" in holistic.requests[0].user


def test_reward_is_openrubricrl_reward() -> None:
    reward = RubricReward(
        _rubric(), CriterionGrader(judge=FakeJudge(_replies(9, 7.5))), normalization="minmax"
    )
    assert reward.reward("q", "x") == pytest.approx(0.875)  # (8.75 - 0) / (10 - 0)


def test_dataset_ground_truth_takes_numbers() -> None:
    from rubricjudge import DatasetError, RubricDataset

    ds = RubricDataset(prompt="p", rubric=_rubric())
    ds.add_item("s", ground_truth={"correctness": 9, "style": 7.5, "has_docstring": True})
    assert ds.items[0].ground_truth == ["9", "7.5", "MET"]
    assert ds.compute_weighted_score(ds.items[0].ground_truth) == pytest.approx(0.875)
    with pytest.raises(
        DatasetError, match=r"items\[1\]\.ground_truth\['correctness'\]: .* outside"
    ):
        ds.add_item("t", ground_truth={"correctness": 90, "style": 7.5, "has_docstring": True})
