"""The seeds' API names that were missing (issue 23): validate_options, validate_schema, aggregate.

autorubric's ``Criterion.validate_options()``, OpenRubricRL's
``Rubric.validate_schema()``, and the ``rubric`` package's ``aggregate()`` override
written as its seed shows it: ``def aggregate(self, judge_results, *, normalize=True)``,
sync or async, with no ``rubric=`` argument.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import (
    ConfigError,
    Criterion,
    CriterionOption,
    CriterionReport,
    CriterionVerdict,
    EvaluationReport,
    FakeJudge,
    Rubric,
)
from rubricjudge.rubric_pkg import PerCriterionGrader

EXAMPLES = Path(__file__).parents[1] / "examples"
MET = CriterionVerdict.MET


def test_validate_options_follows_autorubric() -> None:
    opts = [CriterionOption(label="low", value=0), CriterionOption(label="high", value=1)]
    good = Criterion(name="q", requirement="How good?", options=opts)
    assert good.validate_options() is good
    binary = Criterion(name="b", requirement="Is polite")
    assert binary.validate_options() is binary
    one = Criterion(name="one", requirement="x", options=[CriterionOption(label="only")])
    with pytest.raises(ValueError, match="'one': a multi-choice criterion needs at least 2"):
        one.validate_options()
    na = [CriterionOption(label="yes", value=1), CriterionOption(label="n/a", na=True)]
    with pytest.raises(ValueError, match="at least 2 options that are not N/A"):
        Criterion(name="na", requirement="x", options=na).validate_options()


def test_validate_schema_follows_openrubricrl(tmp_path: Path) -> None:
    rubric = Rubric.from_file(EXAMPLES / "openrubricrl" / "code_quality_basic.json")
    assert rubric.validate_schema() is True
    # weights that do not sum to 1, and a penalty: not an OpenRubricRL rubric
    assert Rubric.from_file(EXAMPLES / "native" / "why_sky_blue.yaml").validate_schema() is False
    loose = tmp_path / "loose.json"
    loose.write_text(json.dumps({"type": "object", "required": ["name", "criteria"]}))
    assert rubric.validate_schema(loose) is True
    strict = tmp_path / "strict.json"
    strict.write_text(json.dumps({"type": "object", "required": ["no_such_field"]}))
    assert rubric.validate_schema(str(strict)) is False
    with pytest.raises(ConfigError, match="not a readable JSON Schema"):
        rubric.validate_schema(tmp_path / "missing.json")


RUBRIC = Rubric(
    [
        Criterion(name="a", weight=3, requirement="States A"),
        Criterion(name="b", weight=1, requirement="States B"),
    ],
    pass_threshold=0.5,
)


def judge() -> FakeJudge:
    return FakeJudge(
        default=lambda req: {"reason": "", "answer": "yes" if "States A" in req.user else "no"}
    )


async def test_a_sync_aggregate_without_rubric_as_the_seed_writes_it() -> None:
    class MetShare(PerCriterionGrader):
        def aggregate(  # type: ignore[override]
            self, judge_results: list[CriterionReport], *, normalize: bool = True
        ) -> EvaluationReport:
            met = sum(r.verdict is MET for r in judge_results)
            return EvaluationReport(score=met / len(judge_results), report=judge_results)

    report = await MetShare(judge(), evidence="off").grade(RUBRIC, "A text")
    assert report.score == 0.5  # one of two criteria met, weights ignored by this override


async def test_an_async_aggregate_without_normalize_or_rubric() -> None:
    class Half(PerCriterionGrader):
        async def aggregate(self, judge_results: Any) -> EvaluationReport:  # type: ignore[override]
            return EvaluationReport(score=0.5, report=judge_results)

    assert (await Half(judge(), evidence="off").grade(RUBRIC, "A")).score == 0.5


async def test_an_override_calling_the_default_without_rubric_scores_the_graded_rubric() -> None:
    class Logged(PerCriterionGrader):
        def aggregate(  # type: ignore[override]
            self, judge_results: list[CriterionReport], *, normalize: bool = True
        ) -> Any:
            return super().aggregate(judge_results, normalize=normalize)

    report = await Logged(judge(), evidence="off").grade(RUBRIC, "A text")
    assert report.score == 0.75 and report.passed is True  # the rubric's threshold applied
