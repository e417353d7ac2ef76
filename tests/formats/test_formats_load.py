"""Loading every rubric format: shapes, field mapping, detection, forced formats."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from rubricjudge import ConfigError, Criterion, Rubric, RubricError, ScoringType
from rubricjudge._formats._detect import detect_format
from rubricjudge._formats._load import load_data, load_file, load_rubrics, load_text, validate_data

EXAMPLES = Path(__file__).parents[2] / "examples"

FLAT = [
    {"name": "margin", "weight": 10.0, "requirement": "States the margin"},
    {"requirement": "Uses Shapley attribution"},
    {"weight": -15.0, "requirement": "Uses total deliveries"},
]


def load_every_way(data: Any, tmp_path: Path) -> list[Rubric]:
    """The same data through dict, JSON, YAML, both file kinds, and file objects."""
    out = [
        load_data(data),
        load_text(json.dumps(data), kind="json"),
        load_text(yaml.safe_dump(data), kind="yaml"),
        Rubric.from_dict(data),
        Rubric.from_json(json.dumps(data)),
        Rubric.from_yaml(yaml.safe_dump(data)),
    ]
    for name, text in (("r.json", json.dumps(data)), ("r.yaml", yaml.safe_dump(data))):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        out.append(load_file(path))
        out.append(Rubric.from_file(str(path)))
        with path.open(encoding="utf-8") as f:
            out.append(load_file(f))
    out.append(load_file(io.StringIO(json.dumps(data))))  # no name: content sniffed
    return out


def test_flat_list_every_way(tmp_path: Path) -> None:
    loaded = load_every_way(FLAT, tmp_path)
    first = loaded[0]
    assert all(r == first for r in loaded)
    assert [c.weight for c in first.criteria] == [10.0, 10.0, -15.0]  # default weight 10
    assert first.criteria[0].name == "margin" and first.criteria[1].name is None
    assert first.criteria[2].requirement == "Uses total deliveries"


@pytest.mark.parametrize(
    "data",
    [
        {"sections": [{"title": "A", "criteria": FLAT[:2]}, {"title": "B", "criteria": FLAT[2:]}]},
        {
            "rubric": {
                "sections": [{"name": "A", "criteria": FLAT[:2]}, {"id": "B", "criteria": FLAT[2:]}]
            }
        },
        {"rubric": [{"section": "A", "criteria": FLAT[:2]}, {"title": "B", "criteria": FLAT[2:]}]},
        [{"title": "A", "criteria": FLAT[:2]}, {"title": "B", "criteria": FLAT[2:]}],
    ],
)
def test_section_shapes_keep_section_names(data: Any) -> None:
    r = load_data(data)
    assert detect_format(data) == "autorubric"
    assert [c.requirement for c in r.criteria] == [c["requirement"] for c in FLAT]
    assert [c.section for c in r.criteria] == ["A", "A", "B"]
    assert r.sections == ["A", "B"]


def test_mixed_list_of_criteria_and_sections() -> None:
    r = load_data([FLAT[0], {"title": "Penalties", "criteria": FLAT[2:]}])
    assert [c.section for c in r.criteria] == [None, "Penalties"]


def test_criteria_with_guidelines_and_rubric_wrapper_header() -> None:
    r = load_data({"criteria": FLAT, "guidelines": "Judge content only."})
    assert r.guidelines == "Judge content only." and len(r) == 3
    r2 = load_data({"rubric": {"id": "rubric-id", "guidelines": "G", "criteria": FLAT}})
    assert r2.id == "rubric-id" and r2.guidelines == "G"
    blank = load_data({"criteria": FLAT, "guidelines": "   "})
    assert blank.guidelines is None  # blank text means no guidelines, as in autorubric


def test_autorubric_keeps_ignored_keys_in_metadata() -> None:
    r = load_data([{"requirement": "R", "rationale": "why", "id": "c1"}])
    assert r.criteria[0].id == "c1"
    assert r.criteria[0].metadata == {"rationale": "why"}


def test_autorubric_multi_choice_example() -> None:
    r = load_file(EXAMPLES / "autorubric" / "dialogue_multi_choice.yaml")
    sat = r.criteria[1]
    assert sat.is_multi_choice and sat.scale_type == "ordinal" and sat.aggregation == "mean"
    assert sat.na_option_index == 4
    assert r.criteria[2].scale_type == "nominal"
    assert r.compute_score(["MET", "4", "just right"]) == pytest.approx(1.0)


def test_openrubricrl_fields() -> None:
    r = load_file(EXAMPLES / "openrubricrl" / "code_quality_basic.json")
    assert (r.name, r.version, r.domain) == ("code_quality_basic", "1.0.0", "code")
    assert r.scale is not None and (r.scale.min, r.scale.max, r.scale.type) == (0, 10, "continuous")
    assert [c.weight for c in r.criteria] == [0.5, 0.3, 0.2]
    assert r.criteria[0].requirement == "Does the code solve the problem correctly?"
    ex = (r.criteria[0].examples or {})["excellent"][0]
    assert ex.score == 9.0 and ex.explanation == "Correct, concise, and readable"
    style = r.criteria[1]
    assert [s.name for s in style.subcriteria or []] == ["naming", "formatting"]
    # subcriteria without weights count equally
    assert len({s.weight for s in style.subcriteria or []}) == 1
    assert r.metadata["author"] == "OpenRubricRL Team"
    hybrid = load_file(EXAMPLES / "openrubricrl" / "creative_writing_advanced.json")
    assert hybrid.hybrid_metrics and hybrid.hybrid_metrics[0].config == {
        "metric_function": "flesch_reading_ease"
    }


def test_openrubricrl_subcriterion_names_scoped_to_their_parent() -> None:
    data = {
        "name": "n",
        "version": "1.0.0",
        "scale": {"min": 0, "max": 1},
        "criteria": [
            {"name": "a", "description": "A", "weight": 0.5,
             "subcriteria": [{"name": "clarity", "description": "x"}]},
            {"name": "b", "description": "B", "weight": 0.5,
             "subcriteria": [{"name": "clarity", "description": "y"}]},
        ],
    }  # fmt: skip
    r = load_data(data)
    assert [leaf.key for leaf in r.leaves()] == ["a.clarity", "b.clarity"]


def test_dataknobs_levels_and_scoring_methods() -> None:
    [content, quiz] = load_rubrics(EXAMPLES / "dataknobs" / "rubrics_config.yaml")
    assert (content.id, content.target_type, content.pass_threshold) == (
        "content_quality",
        "content",
        0.7,
    )
    clarity = content.criteria[0]
    assert clarity.requirement == "How clear and understandable the content is"
    assert [(o.id, o.label, o.value) for o in clarity.options or []] == [
        ("fail", "Fail", 0.0),
        ("pass", "Pass", 0.7),
        ("excellent", "Excellent", 1.0),
    ]
    assert (clarity.options or [])[2].indicators[0] == "Uses concrete examples"
    assert (clarity.options or [])[1].description == "Understandable"
    methods = [c.scoring_method for c in content.criteria]
    assert [m.type for m in methods if m] == [
        ScoringType.FUNCTION,
        ScoringType.JSON_SCHEMA,
        ScoringType.LLM_DECODE,
    ]
    assert methods[0] and methods[0].function_ref == "myapp.scoring:check_clarity"
    assert (
        methods[1]
        and methods[1].json_schema
        and methods[1].json_schema["required"] == ["questions"]
    )
    assert methods[2] and "{% for q in questions %}" in (methods[2].decode_prompt or "")
    assert quiz.id == "quiz_quality"
    # a one-rubric config loads as that rubric; a two-rubric one needs load_rubrics
    assert load_data({"rubrics": [quiz.to_dict(format="dataknobs")]}) == load_file(
        EXAMPLES / "dataknobs" / "quiz_quality.yaml"
    )
    with pytest.raises(RubricError, match="load_rubrics"):
        load_file(EXAMPLES / "dataknobs" / "rubrics_config.yaml")


def test_loading_never_imports_function_refs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "imported"
    (tmp_path / "evil_scoring.py").write_text(
        f"open({str(marker)!r}, 'w').close()\ndef check(x):\n    return 'pass'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    data = yaml.safe_load((EXAMPLES / "dataknobs" / "quiz_quality.yaml").read_text())
    data["criteria"][0]["scoring_method"]["function_ref"] = "evil_scoring:check"
    r = load_data(data)
    assert r.criteria[0].scoring_method and r.criteria[0].scoring_method.function_ref == (
        "evil_scoring:check"
    )
    assert not marker.exists() and "evil_scoring" not in sys.modules


def test_yaml_tags_cannot_build_objects(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("- requirement: !!python/object/apply:os.system ['echo hi']\n")
    with pytest.raises(RubricError, match="line 1"):
        load_file(path)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (FLAT, "autorubric"),
        ({"format": "rubricjudge/1", "criteria": []}, "native"),
        ({"criteria": FLAT, "guidelines": "g"}, "autorubric"),
        ({"criteria": [{"name": "x", "description": "d", "weight": 1.0}]}, "openrubricrl"),
        ({"criteria": [], "scale": {}}, "openrubricrl"),
        ({"criteria": [{"levels": []}]}, "dataknobs"),
        ({"criteria": [], "pass_threshold": 0.5}, "dataknobs"),
        ({"rubrics": []}, "dataknobs"),
    ],
)
def test_detection_rules(data: Any, expected: str) -> None:
    assert detect_format(data) == expected


def test_forced_formats() -> None:
    native = load_file(EXAMPLES / "native" / "answer_quality.yaml").to_dict()
    assert load_data(native, format="native") == load_data(native)
    # the native body without its marker is only native when forced
    body = {k: v for k, v in native.items() if k != "format"}
    assert load_data(body, format="native") == load_data(native)
    # forcing the wrong format reports that format's rules
    problems = validate_data(FLAT, format="openrubricrl")
    assert problems and "OpenRubricRL rubric is a mapping" in problems[0].message
    problems = validate_data({"criteria": FLAT}, format="dataknobs")
    assert any(p.path == "criteria[0].levels" for p in problems)
    assert load_data(FLAT, format="rubric") == load_data(FLAT)  # the `rubric` package's name


def test_unknown_format_name_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="did you mean 'dataknobs'"):
        load_data(FLAT, format="dataknob")


def test_rubric_object_passes_through() -> None:
    r = Rubric([Criterion(requirement="x")])
    assert load_data(r) is r
