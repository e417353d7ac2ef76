"""RubricReward: TRL's reward-function convention, failure policies, normalisation."""

from __future__ import annotations

import asyncio
import statistics
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import Criterion, HybridMetric, JudgeError, Rubric, Scale
from rubricjudge._errors import ConfigError
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._rewards._reward import RewardError, RubricReward

EXAMPLES = Path(__file__).parents[2] / "examples"


def _rubric(scale: Scale | None = None) -> Rubric:
    return Rubric(
        [
            Criterion(name="a", description="mentions apples", weight=0.5),
            Criterion(name="b", description="mentions bananas", weight=0.5),
        ],
        name="fruit check",
        scale=scale,
    )


def keyword_judge(request: JudgeRequest) -> dict[str, Any]:
    """MET when the submission block mentions the criterion's fruit; FAIL raises."""
    submission = request.user[: request.shared_prefix_chars].split("The submission")[1]
    if "FAIL" in submission:
        raise JudgeError("scripted outage", category="server")
    fruit = "apple" if "apples" in request.user[request.shared_prefix_chars :] else "banana"
    return {"reason": "r", "verdict": "MET" if fruit in submission else "UNMET"}


def grader() -> CriterionGrader:
    return CriterionGrader(judge=FakeJudge(default=keyword_judge))


def test_trl_convention_strings_and_chat_messages() -> None:
    reward = RubricReward(_rubric(), grader())
    assert reward.__name__ == "rubric_reward_fruit_check"
    prompts = ["name fruit", [{"role": "user", "content": "name fruit"}], "q"]
    completions = [
        "an apple and a banana",
        [{"role": "assistant", "content": "an apple"}],
        "nothing",
    ]
    out = reward(prompts=prompts, completions=completions, trainer_state=object())
    assert out == [1.0, 0.5, 0.0]
    assert reward.stats.completions == 3 and reward.stats.failures == 0
    assert reward.reward("q", "banana bread") == 0.5


def test_query_reaches_the_judge() -> None:
    judge = FakeJudge(default={"reason": "r", "verdict": "MET"})
    reward = RubricReward(_rubric(), CriterionGrader(judge=judge))
    reward(
        prompts=[[{"role": "system", "content": "S"}, {"role": "user", "content": "QX"}]],
        completions=["c"],
    )
    assert all("QX" in r.user for r in judge.requests)


def test_failure_policies_and_counts() -> None:
    completions = ["apple banana", "FAIL now", "apple"]
    raising = RubricReward(_rubric(), grader())
    with pytest.raises(RewardError, match="1 of 3"):
        raising(prompts=["p"] * 3, completions=completions)
    assert raising.stats.failures == 1

    skip = RubricReward(_rubric(), grader(), failure_policy="skip")
    assert skip(prompts=["p"] * 3, completions=completions) == [1.0, None, 0.5]
    assert skip.stats.failures == 1 and skip.stats.judge_errors == 2

    value = RubricReward(_rubric(), grader(), failure_policy="value", failure_value=-1.0)
    assert value(prompts=["p"] * 3, completions=completions) == [1.0, -1.0, 0.5]
    assert value.stats.as_dict()["scored"] == 2


def test_minmax_over_the_scale() -> None:
    scaled = _rubric(Scale(min=1, max=5))
    raw = RubricReward(scaled, grader())
    assert raw(prompts=None, completions=["apple banana", "apple", "x"]) == [5.0, 3.0, 1.0]
    mm = RubricReward(scaled, grader(), normalization="minmax")
    assert mm(prompts=None, completions=["apple banana", "apple", "x"]) == [1.0, 0.5, 0.0]
    no_scale = RubricReward(_rubric(), grader(), normalization="minmax")
    assert no_scale(completions=["apple"]) == [0.5]


def test_zscore_over_the_batch() -> None:
    rw = RubricReward(_rubric(), grader(), normalization="zscore", failure_policy="value")
    out = rw(completions=["apple banana", "apple", "x", "x", "FAIL"])
    raws = [1.0, 0.5, 0.0, 0.0]
    mean, std = statistics.fmean(raws), statistics.pstdev(raws)
    assert out[:4] == pytest.approx([(r - mean) / std for r in raws])
    assert out[4] == 0.0  # the failure value, not normalised
    assert rw(completions=["apple", "apple"]) == [0.0, 0.0]  # std 0
    with pytest.raises(ConfigError, match="batch"):
        rw.reward("p", "apple")


def test_reference_column_reaches_hybrid_metrics() -> None:
    metric = HybridMetric(
        name="em", type="accuracy", weight=0.5, config={"reference_key": "answer"}
    )
    rubric = _rubric().model_copy(update={"hybrid_metrics": [metric]})
    rw = RubricReward(rubric, grader(), failure_policy="skip")
    out = rw(
        prompts=["p", "p", "p"], completions=["apple", "apple", "x"], answer=["apple", "pear", "x"]
    )
    # 0.5 * llm + 0.5 * exact match
    assert out == [0.5 * 0.5 + 0.5, 0.25, 0.5]
    # no reference at all: the metric fails, and the completion is skipped, not scored 0
    assert rw(completions=["apple"]) == [None]
    assert "needs a reference" in rw.stats.failure_messages[-1]


async def test_acall_inside_a_running_loop() -> None:
    rw = RubricReward(_rubric(), grader())
    assert await rw.acall(["p"], ["apple"]) == [0.5]
    assert rw(["p"], ["banana"]) == [0.5]  # the sync call works inside a loop too
    assert await rw.areward("p", "apple banana") == 1.0


def test_concurrency_is_bounded() -> None:
    state = {"now": 0, "peak": 0}

    class Counting:
        name = "counting"

        async def judge(self, request: JudgeRequest) -> Any:
            from rubricjudge._judges._base import JudgeResponse

            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
            await asyncio.sleep(0.001)
            state["now"] -= 1
            return JudgeResponse(data={"reason": "r", "verdict": "MET"}, raw_text="{}")

    rw = RubricReward(_rubric(), CriterionGrader(judge=Counting()), concurrency=2)
    assert rw(completions=["x"] * 10) == [1.0] * 10
    assert state["peak"] <= 4  # 2 completions at once, 2 criteria each


def test_bad_arguments() -> None:
    with pytest.raises(ConfigError):
        RubricReward(_rubric(), grader(), failure_policy="ignore")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        RubricReward(_rubric(), grader(), normalization="rank")  # type: ignore[arg-type]
    rw = RubricReward(_rubric(), grader())
    with pytest.raises(ConfigError, match="2 prompts for 1"):
        rw(prompts=["a", "b"], completions=["c"])
    with pytest.raises(ConfigError, match="chat message list"):
        rw(completions=[42])


def test_rubric_file_path_and_spec() -> None:
    rw = RubricReward(str(EXAMPLES / "openrubricrl" / "dialogue_quality.yaml"), "fake")
    out = rw(completions=["hi"])
    assert out[0] is not None and 1.0 <= out[0] <= 5.0
