"""The ``json_schema`` and ``llm_decode`` scoring methods."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import (
    ConfigError,
    Criterion,
    CriterionOption,
    CriterionVerdict,
    JudgeError,
    ScoringMethod,
)
from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._methods._functions import FunctionRegistry
from rubricjudge._methods._run import run_method
from tests.support.helpers import graded_levels

LEVELS = graded_levels("Not usable", "Usable", "Great", indicators=["age-appropriate"])
SCHEMA = {
    "type": "object",
    "required": ["questions"],
    "properties": {"questions": {"type": "array", "minItems": 1, "items": {"type": "string"}}},
}


def schema_crit(
    weight: float = 1.0, options: list[CriterionOption] | None = LEVELS, **method: Any
) -> Criterion:
    method = method or {"schema": SCHEMA}
    return Criterion(
        id="shape",
        requirement="Has a list of questions",
        weight=weight,
        options=options,
        scoring_method=ScoringMethod(type="json_schema", **method),
    )


async def test_schema_pass_is_top_level_fail_is_bottom_with_evidence() -> None:
    ok = await run_method(schema_crit(), {"questions": ["a", "b"]})
    assert (ok.level_id, ok.score_value, ok.evidence) == ("excellent", 1.0, [])
    bad = await run_method(schema_crit(), {"questions": ["a", 2]})
    assert (bad.level_id, bad.score_value) == ("fail", 0.0)
    assert bad.evidence == ['/questions/1: 2 is not of type "string"']
    missing = await run_method(schema_crit(), '{"title": "quiz"}')  # JSON text works too
    assert missing.level_id == "fail" and "required property" in missing.evidence[0]
    not_json = await run_method(schema_crit(), "questions: a, b")
    assert not_json.level_id == "fail" and not_json.evidence[0].startswith("content is not JSON")


async def test_schema_binary_and_penalty_criteria() -> None:
    binary = schema_crit(options=None)
    assert (await run_method(binary, {"questions": ["a"]})).verdict is CriterionVerdict.MET
    assert (await run_method(binary, {})).verdict is CriterionVerdict.UNMET
    penalty = schema_crit(weight=-1.0, options=None)  # MET = the fault is present
    assert (await run_method(penalty, {"questions": ["a"]})).verdict is CriterionVerdict.UNMET


async def test_schema_refs_never_fetch(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "quiz.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    (tmp_path / "secret.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    reg = FunctionRegistry(schema_dirs=[tmp_path / "schemas"])
    reg.register_schema("quiz", SCHEMA)
    for ref in ("quiz", "quiz.json"):
        report = await run_method(schema_crit(schema_ref=ref), {"questions": ["a"]}, functions=reg)
        assert report.level_id == "excellent"
    for ref in ("../secret.json", str(tmp_path / "secret.json")):
        with pytest.raises(ConfigError, match="allowed schema directories"):
            await run_method(schema_crit(schema_ref=ref), {}, functions=reg)
    with pytest.raises(ConfigError, match="never fetches"):
        await run_method(schema_crit(schema_ref="https://example.com/s.json"), {}, functions=reg)
    remote = {"$ref": "http://127.0.0.1:9/schema.json"}
    with pytest.raises(ConfigError, match="self-contained"):
        await run_method(schema_crit(schema=remote), {})


TEMPLATE = "Questions for {{ grade }}:\n{% for q in questions %}- {{ q }}\n{% endfor %}"


def decode_crit(
    template: str = TEMPLATE, options: list[CriterionOption] | None = LEVELS, **extra: Any
) -> Criterion:
    return Criterion(
        id="pedagogy",
        name="Pedagogy",
        requirement="Questions test understanding",
        options=options,
        scoring_method=ScoringMethod(type="llm_decode", decode_prompt=template, **extra),
    )


async def test_decode_renders_asks_for_one_level_and_audits() -> None:
    judge = FakeJudge([{"level_id": "pass", "reason": "fine"}], tokens_per_call=11)
    content = {"grade": "grade 5", "questions": ["Why is the sky blue?", "What is rain?"]}
    report = await run_method(decode_crit(), content, judge=judge)
    req = judge.requests[0]
    assert req.user == "Questions for grade 5:\n- Why is the sky blue?\n- What is rain?\n"
    assert req.schema["properties"]["level_id"]["enum"] == ["fail", "pass", "excellent"]
    assert "- pass: Usable Indicators: age-appropriate." in req.system
    assert (report.level_id, report.score_value, report.notes) == ("pass", 0.7, "fine")
    audit = report.llm_invocation or {}
    assert (
        audit["prompt_sha256"] == hashlib.sha256(f"{req.system}\n\n{req.user}".encode()).hexdigest()
    )
    assert (
        audit["response_sha256"]
        == hashlib.sha256(json.dumps({"level_id": "pass", "reason": "fine"}).encode()).hexdigest()
    )
    assert audit["model"] == "fake" and audit["timestamp"].endswith("+00:00")
    assert audit["usage"]["prompt_tokens"] == 11
    assert report.token_usage is not None and report.token_usage.prompt_tokens == 11


async def test_decode_text_targets_and_binary_levels() -> None:
    judge = FakeJudge([{"level_id": "UNMET", "reason": "no"}])
    report = await run_method(decode_crit("Answer: {{ content }}", options=None), "42", judge=judge)
    assert judge.requests[0].user == "Answer: 42"
    assert judge.requests[0].schema["properties"]["level_id"]["enum"] == ["MET", "UNMET"]
    assert report.verdict is CriterionVerdict.UNMET


@pytest.mark.parametrize(
    ("template", "content"),
    [
        ("{{ missing_variable }}", {}),  # StrictUndefined
        ("{{ questions.__class__.__mro__ }}", {"questions": []}),  # sandbox blocks internals
        ("{% set _ = questions.append('x') %}{{ questions }}", {"questions": []}),  # immutable
        ("{% include 'etc/passwd' %}", {}),  # no loader: nothing on disk is reachable
    ],
)
async def test_decode_template_failures_are_recorded(template: str, content: Any) -> None:
    judge = FakeJudge()
    report = await run_method(decode_crit(template), content, judge=judge)
    assert report.error_category == "template" and report.level_id == "unable_to_evaluate"
    assert report.verdict is CriterionVerdict.CANNOT_ASSESS
    assert judge.requests == []  # nothing was sent


async def test_decode_judge_failures_are_recorded() -> None:
    failing = FakeJudge([JudgeError("HTTP 503", category="server")])
    report = await run_method(decode_crit(), {"grade": "5", "questions": []}, judge=failing)
    assert report.error_category == "server" and report.level_id == "unable_to_evaluate"
    assert (report.llm_invocation or {})["response_sha256"] is None
    off = FakeJudge([{"level_id": "superb", "reason": "?"}])
    report = await run_method(decode_crit(), {"grade": "5", "questions": []}, judge=off)
    assert report.error_category == "parse" and "'superb' is not a level" in (report.error or "")

    # a reply without level_id but naming exactly one level in its text is read
    def text_reply(_: JudgeRequest) -> str:
        return '{"reason": "I pick excellent"}'

    report = await run_method(
        decode_crit(), {"grade": "5", "questions": []}, judge=FakeJudge(default=text_reply)
    )
    assert report.level_id == "excellent"


async def test_decode_needs_a_judge_and_a_valid_template() -> None:
    with pytest.raises(ConfigError, match="needs a judge"):
        await run_method(decode_crit(), {})
    with pytest.raises(ConfigError, match="not a valid Jinja2 template"):
        await run_method(decode_crit("{% for %}"), {}, judge=FakeJudge())


async def test_decode_content_cannot_inject_template_code() -> None:
    judge = FakeJudge([{"level_id": "fail", "reason": "r"}])
    sneaky = {"grade": "{{ 7 * 7 }}", "questions": ["{% raw %}x"]}
    await run_method(decode_crit(), sneaky, judge=judge)
    assert "{{ 7 * 7 }}" in judge.requests[0].user and "49" not in judge.requests[0].user
