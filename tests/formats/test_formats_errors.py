"""Error messages: every problem collected, each naming the file, the path, the value, the fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import Problem, Rubric, RubricError
from rubricjudge._formats._load import load_data, load_file, validate_data

BAD = Path(__file__).parents[1] / "data" / "bad"


def problems_of(path: Path, **kw: Any) -> list[Problem]:
    with pytest.raises(RubricError) as info:
        load_file(path, **kw)
    assert str(path) in str(info.value)  # the file is named
    assert info.value.source == str(path)
    return info.value.problems


def by_path(problems: list[Problem]) -> dict[str, str]:
    return {p.path: p.message for p in problems}


def test_autorubric_file_reports_every_problem() -> None:
    found = by_path(problems_of(BAD / "autorubric_bad.yaml"))
    assert set(found) == {"[0].wieght", "[1].weight", "[2].description", "[3].options[1].value"}
    assert "did you mean 'weight'" in found["[0].wieght"]
    assert "'heavy'" in found["[1].weight"] and "number" in found["[1].weight"]
    assert "rename 'description' to 'requirement'" in found["[2].description"]
    assert "2.0" in found["[3].options[1].value"] and "[0, 1]" in found["[3].options[1].value"]


def test_openrubricrl_rules() -> None:
    found = by_path(problems_of(BAD / "openrubricrl_bad.json"))
    assert "sum to 2.1, not 1.0" in found["criteria"]
    assert "1.5 is outside [0, 1]" in found["criteria[1].weight"]
    assert "'description' is missing" in found["criteria[2].description"]
    assert "'explanation' is missing" in found["criteria[2].examples.poor[0].explanation"]
    assert "'poetry'" in found["domain"] and "'creative_writing'" in found["domain"]
    assert "'2.1' is not semver" in found["version"] and "MAJOR.MINOR.PATCH" in found["version"]
    assert "greater than min" in found["scale"]


def test_openrubricrl_weight_tolerance() -> None:
    base = {"name": "n", "version": "1.0.0", "scale": {"min": 0, "max": 1}}
    ok = [{"name": f"c{i}", "description": "d", "weight": 0.1} for i in range(10)]
    assert validate_data({**base, "criteria": ok}) == []  # 0.1 * 10 is not exactly 1.0
    off = [*ok[:9], {"name": "c9", "description": "d", "weight": 0.1 + 2e-6}]
    assert [p.path for p in validate_data({**base, "criteria": off})] == ["criteria"]
    missing = validate_data({"criteria": ok})
    assert {p.path for p in missing} >= {"name", "version", "scale"}


def test_dataknobs_paths_use_dataknobs_names() -> None:
    found = by_path(problems_of(BAD / "dataknobs_bad.yaml"))
    assert "1.5" in found["criteria[0].levels[1].score"]  # option value -> level score
    assert "function_ref" in found["criteria[0].scoring_method"]
    assert "'python'" in found["criteria[1].scoring_method.type"]
    assert "'deterministic'" in found["criteria[1].scoring_method.type"]
    assert "missing" in found["criteria[1].levels[0].description"]
    assert "1.7" in found["pass_threshold"]


def test_native_rejects_unknown_and_foreign_keys() -> None:
    found = by_path(problems_of(BAD / "native_unknown_keys.yaml"))
    assert "unknown key 'colour'" in found["criteria[0].colour"]
    assert "requirement" in found["criteria[0].colour"]  # lists the allowed keys
    assert "did you mean 'weight'" in found["criteria[1].wieght"]
    assert "rename 'description' to 'requirement'" in found["criteria[1].description"]
    assert "'1.0' is not semver" in found["version"]


def test_native_unknown_top_level_and_nested_keys() -> None:
    data = {
        "format": "rubricjudge/1",
        "criteria": [
            {"requirement": "r", "options": [{"label": "a", "value": 1.0, "score": 1}],
             "scoring_method": {"type": "json_schema", "schema": {"type": "object"}}},
        ],
        "title": "x",
    }  # fmt: skip
    found = by_path(validate_data(data))
    assert "unknown key 'title'" in found["title"]
    assert "unknown key 'score'" in found["criteria[0].options[0].score"]
    assert "json_schema" in found["criteria[0].scoring_method.schema"]
    wrong = by_path(validate_data({"format": "rubricjudge/9", "criteria": [{"requirement": "r"}]}))
    assert "'rubricjudge/1'" in wrong["format"]


def test_missing_requirement_is_reported_under_its_native_name() -> None:
    found = by_path(validate_data({"format": "rubricjudge/1", "criteria": [{"weight": 1.0}]}))
    assert found == {"criteria[0].requirement": "required key 'requirement' is missing; add it"}


def test_syntax_errors_name_file_and_line() -> None:
    yaml_problems = problems_of(BAD / "syntax_error.yaml")
    assert yaml_problems[0].path == "line 5"
    assert "YAML syntax error" in yaml_problems[0].message and "line 3" in yaml_problems[0].message
    json_problems = problems_of(BAD / "syntax_error.json")
    assert json_problems[0].path == "line 3"
    assert "column 18" in json_problems[0].message


def test_not_a_rubric_and_missing_file(tmp_path: Path) -> None:
    [problem] = problems_of(BAD / "not_a_rubric.json")
    assert "'title', 'items'" in problem.message and "'criteria'" in problem.message
    missing = tmp_path / "nope.yaml"
    assert "file not found" in problems_of(missing)[0].message


def test_empty_and_wrong_shapes() -> None:
    assert "no criteria found" in validate_data([])[0].message
    assert "expected a criterion or a section" in validate_data(["text"])[0].message
    assert validate_data([{"title": "S", "criteria": "x"}])[0].path == "[0].criteria"
    assert (
        "at least one criterion"
        in validate_data({"format": "rubricjudge/1", "criteria": []})[0].message
    )


def test_duplicate_keys_and_model_rules_surface() -> None:
    data = [{"name": "a", "requirement": "x"}, {"name": "a", "requirement": "y"}]
    [problem] = validate_data(data)
    assert "'a' is used twice" in problem.message


def test_dataset_source_is_named() -> None:
    with pytest.raises(RubricError) as info:
        load_data(json.loads('[{"weight": "w", "requirement": "x"}]'), source="ds.json rubric")
    assert "ds.json rubric" in str(info.value) and "[0].weight" in str(info.value)


def test_duplicate_keys_are_errors_not_silently_dropped() -> None:
    [problem] = problems_of(BAD / "duplicate_key.yaml")
    assert problem.path == "criteria[0].weight" and "lines 4 and 5" in problem.message
    with pytest.raises(RubricError, match="'weight' appears twice"):
        Rubric.from_json('[{"requirement": "a", "weight": 1, "weight": 2}]')
