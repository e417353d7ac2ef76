"""Perplexity: the mapping, its errors, and the real local model's log-probabilities."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from rubricjudge import Criterion, HybridMetric, Rubric
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._hybrid._base import MetricError
from rubricjudge._hybrid._grader import HybridGrader
from rubricjudge._hybrid._perplexity import Perplexity, perplexity_to_unit
from rubricjudge._judges._fake import FakeJudge


def test_mapping() -> None:
    assert perplexity_to_unit(1.0) == 1.0
    assert perplexity_to_unit(1000.0) == pytest.approx(0.0)
    assert perplexity_to_unit(math.sqrt(1000.0)) == pytest.approx(0.5)
    assert perplexity_to_unit(10.0, ceiling=100.0) == pytest.approx(0.5)
    assert perplexity_to_unit(5000.0) == 0.0
    with pytest.raises(MetricError):
        perplexity_to_unit(10.0, ceiling=1.0)


def _rubric() -> Rubric:
    return Rubric(
        [Criterion(name="c", description="d", weight=1.0)],
        hybrid_metrics=[HybridMetric(name="ppl", type="perplexity", weight=0.3)],
    )


def test_missing_model_is_an_error_in_the_report(tmp_path: Path) -> None:
    grader = HybridGrader(
        CriterionGrader(judge=FakeJudge()),
        metrics={"perplexity": Perplexity(tmp_path / "absent.gguf")},
    )
    report = grader.grade_sync(_rubric(), "some text")
    assert report.metrics is not None
    assert "does not exist" in (report.metrics[0].error or "")
    assert report.score is None


@pytest.mark.local_model
async def test_real_model_prefers_fluent_text() -> None:
    pytest.importorskip("llama_cpp")
    metric = Perplexity(n_ctx=256)
    fluent, n, truncated = metric.compute("The capital of France is Paris.")
    scrambled, _, _ = metric.compute("Paris France capital the of is.")
    assert n > 3 and not truncated
    assert 1.0 < fluent < scrambled
    report = await HybridGrader(CriterionGrader(judge=FakeJudge())).grade(
        _rubric().model_copy(
            update={"hybrid_metrics": [HybridMetric(name="ppl", type="perplexity", weight=0.3)]}
        ),
        "The capital of France is Paris.",
    )
    assert report.metrics is not None and report.metrics[0].error is None
    assert report.metrics[0].raw == pytest.approx(fluent, rel=1e-3)
    assert report.metrics[0].value == pytest.approx(perplexity_to_unit(fluent))
