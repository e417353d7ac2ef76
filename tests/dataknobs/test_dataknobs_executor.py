"""``compat="dataknobs"`` against dataknobs-bots 0.13.1's executor (issue 23).

dataknobs-bots needs Python 3.12, so it is not installed here; its
``rubrics/executor.py`` was read and the rules below are transcribed from it:

* SCHEMA: a pass takes the highest-scoring level and a failure the lowest, by a
  stable sort on the levels' scores, whatever the weight's sign;
* LLM_DECODE: the reply's text, stripped, parsed whole as JSON with a ``level_id``
  that is exactly a level id; else the text stripped of quotes equal to a level id
  but for case; else ``unable_to_evaluate`` (score 0).

And the evaluation's fields that dataknobs code reads.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from rubricjudge import Criterion, CriterionOption, Rubric, ScoringMethod
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._methods._run import run_method
from rubricjudge.dataknobs import RubricExecutor

LEVELS = [
    CriterionOption(id="poor", label="Poor", value=0.0),
    CriterionOption(id="fair", label="Fair", value=0.5),
    CriterionOption(id="good", label="Good", value=1.0),
]
IDS = [o.id or o.label for o in LEVELS]
SCORE = {o.id: o.value for o in LEVELS}


def dataknobs_decode(text: str) -> float:
    """dataknobs' ``_parse_llm_level_response`` then ``_level_id_to_score``."""
    text = text.strip()
    level: str | None = None
    try:
        data = json.loads(text)
        if isinstance(data, dict) and "level_id" in data:
            level = str(data["level_id"])
    except (json.JSONDecodeError, TypeError):
        pass
    if level is None or level not in IDS:
        cleaned = text.strip().strip('"').strip("'").lower()
        level = next((i for i in IDS if cleaned == i.lower()), "unable_to_evaluate")
    return SCORE.get(level, 0.0)


REPLIES = [
    "good",
    "Good",
    "  GOOD \n",
    '"fair"',
    "'poor'",
    '{"level_id": "good"}',
    '{"level_id": "good", "reason": "clear"}',
    '{"level_id": "Good"}',
    '```json\n{"level_id": "good"}\n```',
    "The level is good.",
    '{"level": "good"}',
    '{"level_id": "excellent"}',
    "",
]


def decode_criterion(weight: float = 1.0) -> Criterion:
    method = ScoringMethod(type="llm_decode", decode_prompt="Rate: {{ content }}")
    return Criterion(
        id="q", requirement="How good?", weight=weight, options=LEVELS, scoring_method=method
    )


@pytest.mark.parametrize("reply", REPLIES)
def test_llm_decode_replies_read_as_dataknobs_reads_them(reply: str) -> None:
    judge = FakeJudge([reply])
    report = asyncio.run(run_method(decode_criterion(), "text", judge=judge, policy="dataknobs"))
    from rubricjudge._model._scoring import ScoringPolicy, report_value

    assert report_value(report, ScoringPolicy.dataknobs()) == dataknobs_decode(reply), reply


def test_the_disputed_replies() -> None:
    # issue 23: bare `good` was 0.0 here, 1.0 there; `{"level_id": "Good"}` and a fenced
    # reply 1.0 here, 0.0 there
    assert dataknobs_decode("good") == 1.0
    assert dataknobs_decode('{"level_id": "Good"}') == 0.0
    assert dataknobs_decode('```json\n{"level_id": "good"}\n```') == 0.0


def schema_criterion(weight: float) -> Criterion:
    schema = {"type": "object", "required": ["title"]}
    method = ScoringMethod(type="json_schema", schema=schema)
    return Criterion(
        id="s", requirement="Has a title", weight=weight, options=LEVELS, scoring_method=method
    )


@pytest.mark.parametrize("weight", [1.0, -1.0])
@pytest.mark.parametrize(("target", "passed"), [({"title": "x"}, True), ({}, False)])
def test_schema_levels_follow_the_scores_not_the_weight(
    weight: float, target: dict[str, Any], passed: bool
) -> None:
    c = schema_criterion(weight)
    dk = asyncio.run(run_method(c, target, policy="dataknobs"))
    assert dk.level_id == ("good" if passed else "poor")  # highest / lowest score
    ours = asyncio.run(run_method(c, target))
    best = passed == (weight > 0)  # ours: the best outcome for the weight's sign
    assert ours.level_id == ("good" if best else "poor")


def test_the_evaluation_has_dataknobs_fields() -> None:
    data = {
        "id": "quality",
        "name": "Quality",
        "version": "1.2.0",
        "target_type": "essay",
        "description": "Essay quality",
        "pass_threshold": 0.5,
        "criteria": [
            {
                "id": "c1",
                "name": "Title",
                "description": "Has a title",
                "weight": 1.0,
                "levels": [
                    {"id": "fail", "label": "Fail", "description": "none", "score": 0.0},
                    {"id": "pass", "label": "Pass", "description": "one", "score": 1.0},
                ],
                "scoring_method": {
                    "type": "schema",
                    "schema": {"type": "object", "required": ["title"]},
                },
            }
        ],
    }
    rubric = Rubric.from_dict(data, format="dataknobs")
    assert [lv.id for lv in rubric.criteria[0].levels] == ["fail", "pass"]  # from_dict has .levels
    assert rubric.criteria[0].levels[1].score == 1.0
    executor = RubricExecutor(policy="dataknobs")
    ev = asyncio.run(executor.evaluate(rubric, {"title": "x"}, target_id="art_1"))
    assert (ev.rubric_id, ev.rubric_version) == ("quality", "1.2.0")
    assert (ev.target_id, ev.target_type) == ("art_1", "essay")
    assert ev.evaluated_at and ev.evaluated_at.endswith("+00:00")
    assert ev.evaluated_by == "rubricjudge"
    result = ev.criterion_results[0]
    assert result.criterion_id == "c1" and result.score == 1.0 and ev.weighted_score == 1.0
