"""Combining the judges' score with hybrid metrics, custom metrics, and HybridGrader."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rubricjudge import ConfigError, Criterion, HybridMetric, Rubric, Scale
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._hybrid._base import MetricError, MetricInput, MetricValue
from rubricjudge._hybrid._combine import combine_scores
from rubricjudge._hybrid._grader import HybridGrader
from rubricjudge._hybrid._names import metric_names, register_metric, unregister_metric
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._model._reports import MetricResult

EXAMPLES = Path(__file__).parents[2] / "examples"


def result(weight: float, value: float | None, error: str | None = None) -> MetricResult:
    return MetricResult(name="m", type="custom", weight=weight, value=value, error=error)


def test_formula_all_metrics_ran() -> None:
    score, err = combine_scores(0.8, [result(0.1, 0.5), result(0.2, 1.0)])
    assert err is None
    assert score == pytest.approx(0.7 * 0.8 + 0.1 * 0.5 + 0.2 * 1.0)
    # weights summing to exactly 1: the judges weigh nothing
    assert combine_scores(0.0, [result(1.0, 0.25)])[0] == pytest.approx(0.25)
    assert combine_scores(0.3, [])[0] == pytest.approx(0.3)


def test_failed_metric_error_policy_and_drop_policy() -> None:
    results = [result(0.2, None, "boom"), result(0.3, 1.0)]
    assert combine_scores(0.5, results) == (None, "hybrid metric failed: 'm' (boom)")
    dropped, err = combine_scores(0.5, results, "drop")
    assert err is None
    assert dropped == pytest.approx((0.5 * 0.5 + 0.3 * 1.0) / (0.5 + 0.3))
    none, err = combine_scores(0.9, [result(1.0, None, "x")], "drop")
    assert none is None and err is not None and "no weight" in err
    assert combine_scores(None, [result(0.1, 1.0)])[0] is None


def _rubric(*metrics: HybridMetric, scale: Scale | None = None) -> Rubric:
    return Rubric(
        [Criterion(name="c", description="is correct", weight=1.0)],
        hybrid_metrics=list(metrics),
        scale=scale,
        pass_threshold=0.5,
    )


def met_grader(verdict: str = "MET") -> CriterionGrader:
    return CriterionGrader(judge=FakeJudge(default={"reason": "r", "verdict": verdict}))


@pytest.fixture
def length_metric() -> Iterator[str]:
    async def short_is_good(inp: MetricInput) -> MetricValue:
        return MetricValue(value=1.0 / len(inp.prediction.split()), raw=len(inp.prediction))

    register_metric("short_is_good", short_is_good)
    yield "short_is_good"
    unregister_metric("short_is_good")


def test_custom_metric_by_name_async(length_metric: str) -> None:
    metric = HybridMetric(
        name="brevity", type="custom", weight=0.4, config={"metric_function": length_metric}
    )
    rubric = _rubric(metric, scale=Scale(min=0, max=10))
    report = HybridGrader(met_grader("UNMET")).grade_sync(rubric, "one two three four")
    assert report.llm_score == 0.0
    assert report.metrics is not None and report.metrics[0].value == pytest.approx(0.25)
    assert report.score == pytest.approx(0.6 * 0.0 + 0.4 * 0.25)
    assert report.scaled_score == pytest.approx(report.score * 10)
    assert report.passed is False
    assert length_metric in metric_names()


def test_grader_level_metrics_and_plain_float() -> None:
    metric = HybridMetric(name="k", type="custom", weight=0.5, config={"metric_function": "half"})
    grader = HybridGrader(met_grader(), metrics={"half": lambda inp: 0.5})
    report = grader.grade_sync(_rubric(metric), "x")
    assert report.score == pytest.approx(0.5 * 1.0 + 0.5 * 0.5)


@pytest.mark.parametrize("bad", [1.5, -0.1, float("nan"), "0.5", True])
def test_bad_metric_values_are_errors(bad: object) -> None:
    metric = HybridMetric(name="k", type="custom", weight=0.5, config={"metric_function": "bad"})
    grader = HybridGrader(met_grader(), metrics={"bad": lambda inp: bad})
    report = grader.grade_sync(_rubric(metric), "x")
    assert report.metrics is not None and report.metrics[0].value is None
    assert report.metrics[0].error
    assert report.score is None and report.error and "hybrid metric failed" in report.error


def test_metric_error_is_recorded_never_zero() -> None:
    def refuses(inp: MetricInput) -> float:
        raise MetricError("the oracle is down")

    metric = HybridMetric(name="o", type="custom", weight=0.2, config={"metric_function": "o"})
    report = HybridGrader(met_grader(), metrics={"o": refuses}).grade_sync(_rubric(metric), "x")
    assert report.metrics is not None and report.metrics[0].error == "the oracle is down"
    assert report.score is None and report.llm_score == 1.0
    dropped = HybridGrader(met_grader(), metrics={"o": refuses}, on_metric_error="drop")
    assert dropped.grade_sync(_rubric(metric), "x").score == 1.0


def test_reference_sources() -> None:
    em = HybridMetric(name="em", type="accuracy", weight=0.5, config={"reference_key": "gold"})
    grader = HybridGrader(met_grader())
    rubric = _rubric(em)
    assert grader.grade_sync(rubric, "Paris", fields={"gold": "paris"}).score == 1.0
    assert grader.grade_sync(rubric, "Paris", fields={"gold": ["Lyon", "Paris"]}).score == 1.0
    assert grader.grade_sync(rubric, "Paris", references=["Lyon"]).score == 0.5
    assert grader.grade_sync(rubric, "Paris", reference_submission="paris").score == 1.0
    missing = grader.grade_sync(rubric, "Paris")
    assert missing.score is None
    assert missing.metrics is not None and "needs a reference" in (missing.metrics[0].error or "")


def test_usage_errors_before_any_judge_call() -> None:
    judge = FakeJudge()
    grader = HybridGrader(CriterionGrader(judge=judge))
    unknown = HybridMetric(name="u", type="custom", weight=0.1, config={"metric_function": "blue"})
    with pytest.raises(ConfigError, match="did you mean 'bleu'"):
        grader.grade_sync(_rubric(unknown), "x")
    no_fn = HybridMetric(name="u", type="custom", weight=0.1)
    with pytest.raises(ConfigError, match="metric_function"):
        grader.grade_sync(_rubric(no_fn), "x")
    heavy = [HybridMetric(name=f"b{i}", type="bleu", weight=0.6) for i in range(2)]
    with pytest.raises(ConfigError, match="sum to 1.2"):
        grader.grade_sync(_rubric(*heavy), "x")
    assert judge.requests == []
    with pytest.raises(ConfigError, match="already registered"):
        register_metric("bleu", lambda inp: 1.0)
    with pytest.raises(ConfigError):
        register_metric("../x", lambda inp: 1.0)


def test_openrubricrl_flesch_reading_ease_example() -> None:
    rubric = Rubric.from_file(EXAMPLES / "openrubricrl" / "creative_writing_advanced.json")
    report = HybridGrader(met_grader("UNMET")).grade_sync(
        rubric, "Rubrics help graders agree about what a good answer contains."
    )
    assert report.metrics is not None
    (m,) = report.metrics
    assert (m.name, m.type) == ("readability", "custom")
    assert m.raw is not None and 0 < m.raw < 100 and m.value == pytest.approx(m.raw / 100)
    assert report.score == pytest.approx(0.1 * m.value)
    assert report.scaled_score == pytest.approx(100 * report.score)


def test_rubric_without_metrics_is_unchanged() -> None:
    rubric = Rubric([Criterion(name="c", description="d", weight=1.0)])
    report = HybridGrader("fake").grade_sync(rubric, "x")
    assert report.metrics is None and report.llm_score is None
