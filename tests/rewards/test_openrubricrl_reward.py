"""OpenRubricRL's reward: the exact place on the scale, never the rounded display.

OpenRubricRL 0.1.0 scores each criterion on the rubric's scale, takes their weighted
average as ``overall_score`` and normalises it min-max over the scale
(``RewardProcessor.normalize_score``); nothing is rounded, even on a discrete scale.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rubricjudge import Criterion, Rubric, Scale
from rubricjudge._cli.main import main
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._graders._holistic import RubricAsJudgeGrader
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._model._scoring import finalize, reports_from_verdicts
from rubricjudge._rewards._reward import RubricReward


def _rubric(weights: list[float], scale: Scale) -> Rubric:
    criteria = [
        Criterion(name=f"c{i}", description=f"d{i}", weight=w) for i, w in enumerate(weights)
    ]
    return Rubric(criteria, name="r", version="1.0.0", scale=scale)


def _openrubricrl_reward(
    criterion_scores: list[float], weights: list[float], scale: Scale
) -> float:
    """OpenRubricRL's formula, written from its behaviour: min-max of the weighted average."""
    overall = sum(w * s for w, s in zip(weights, criterion_scores, strict=True))
    return (overall - scale.min) / (scale.max - scale.min)


DISCRETE = Scale(min=1, max=5, type="discrete")


def test_issue_case_weights_six_four_on_one_to_five() -> None:
    rubric = _rubric([0.6, 0.4], DISCRETE)
    report = finalize(rubric, reports_from_verdicts(rubric, ["MET", "UNMET"]))
    assert report.score == pytest.approx(0.6)
    assert report.overall_score == pytest.approx(3.4)  # 0.6 * 5 + 0.4 * 1
    assert report.scaled_score == 3.0  # the display, rounded on a discrete scale
    graded = CriterionGrader(
        judge=FakeJudge([{"reason": "r", "verdict": v} for v in ("yes", "no")])
    )
    reward = RubricReward(rubric, graded, normalization="minmax")
    assert reward.reward("q", "a") == pytest.approx(0.6)  # was 0.5: (3 - 1) / 4


def test_unnormalised_reward_is_the_exact_place_on_the_scale() -> None:
    rubric = _rubric([0.6, 0.4], DISCRETE)
    graded = CriterionGrader(
        judge=FakeJudge([{"reason": "r", "verdict": v} for v in ("yes", "no")])
    )
    assert RubricReward(rubric, graded).reward("q", "a") == pytest.approx(3.4)


@pytest.mark.parametrize("seed", range(40))
def test_reward_matches_openrubricrl_on_random_rubrics(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 6)
    raw = [rng.random() + 0.01 for _ in range(n)]
    weights = [w / sum(raw) for w in raw]
    lo = float(rng.choice([0, 1, -5]))
    scale = Scale(
        min=lo, max=lo + rng.choice([1, 4, 10, 100]), type=rng.choice(["discrete", "continuous"])
    )
    met = [rng.random() < 0.5 for _ in range(n)]
    rubric = _rubric(weights, scale)
    report = finalize(rubric, reports_from_verdicts(rubric, met))
    # a binary criterion scores the top of the scale when met, the bottom when not
    per_criterion = [scale.max if m else scale.min for m in met]
    expected = _openrubricrl_reward(per_criterion, weights, scale)
    replies = [{"reason": "r", "verdict": "MET" if m else "UNMET"} for m in met]
    reward = RubricReward(rubric, CriterionGrader(judge=FakeJudge(replies)), normalization="minmax")
    assert reward.reward("q", "a") == pytest.approx(expected, abs=1e-9)
    assert report.overall_score == pytest.approx(scale.min + expected * (scale.max - scale.min))
    if scale.type == "discrete":
        assert report.scaled_score == float(round(report.overall_score + 1e-12))
    else:
        assert report.scaled_score == report.overall_score


def test_holistic_grader_reports_both() -> None:
    rubric = _rubric([0.6, 0.4], DISCRETE)
    report = RubricAsJudgeGrader(judge=FakeJudge([{"reason": "r", "score": 60}])).grade_sync(
        rubric, "a"
    )
    assert report.overall_score == pytest.approx(3.4) and report.scaled_score == 3.0


def test_score_command_prints_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.yaml"
    _rubric([0.6, 0.4], DISCRETE).to_file(path, format="openrubricrl")
    verdicts = tmp_path / "v.json"
    verdicts.write_text(json.dumps({"c0": "MET", "c1": "UNMET"}))
    assert main(["score", str(path), "--verdicts", str(verdicts)]) == 0
    out = capsys.readouterr().out
    assert "on the scale: 3.4" in out and "on the scale, rounded: 3" in out
    assert main(["score", str(path), "--verdicts", str(verdicts), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["overall_score"] == pytest.approx(3.4) and data["scaled_score"] == 3.0


def _hybrid_rubric() -> Rubric:
    from rubricjudge import HybridMetric

    criteria = [Criterion(name="quality", description="Is it good?", weight=1.0)]
    metrics = [HybridMetric(name="bleu", type="bleu", weight=0.3)]
    return Rubric(criteria, name="h", version="1.0.0", hybrid_metrics=metrics)


def test_a_hybrid_metric_that_cannot_be_computed_fails_naming_it_and_the_column() -> None:
    # issue 23: every rubric with hybrid metrics failed with no way to blend what it can
    from rubricjudge.rewards import RewardError

    reward = RubricReward(_hybrid_rubric(), CriterionGrader("fake"))
    with pytest.raises(RewardError, match="'bleu'.*needs a reference") as e:
        reward(prompts=["q"], completions=["an answer"])
    assert "'reference' column" in str(e.value) and "on_metric_error='drop'" in str(e.value)


def test_on_metric_error_drop_blends_the_metrics_it_can_compute() -> None:
    from sacrebleu import sentence_bleu

    reward = RubricReward(_hybrid_rubric(), CriterionGrader("fake"), on_metric_error="drop")
    got = reward(
        prompts=["q", "q"],
        completions=["the cat sat on the mat", "a dog"],
        reference=["the cat sat on a mat", None],
    )
    bleu = sentence_bleu("the cat sat on the mat", ["the cat sat on a mat"]).score / 100
    assert got[0] == pytest.approx(0.7 * 1.0 + 0.3 * bleu)  # the fake judge says MET
    assert got[1] == 1.0  # no reference: the metric leaves the blend, never scored 0
    assert reward.stats.failures == 0
