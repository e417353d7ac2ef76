"""Writing: exact native round trips, conversions and what they report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rubricjudge import (
    CalibrationExample,
    ConfigError,
    Criterion,
    CriterionOption,
    HybridMetric,
    Rubric,
    Scale,
    ScoringMethod,
    ScoringType,
)
from rubricjudge._formats._dump import convert_rubric, dump_file
from rubricjudge._formats._load import load_data, load_file, load_text

EXAMPLES = Path(__file__).parents[2] / "examples"
ALL_EXAMPLES = sorted(
    p
    for p in EXAMPLES.rglob("*")
    if p.suffix in (".json", ".yaml") and "rubrics_config" not in p.name
)


def rich_rubric() -> Rubric:
    return Rubric(
        [
            Criterion(name="facts", requirement="Facts right\nand cited", weight=6.0, section="A"),
            Criterion(
                id="tone",
                requirement="Tone",
                weight=4.0,
                options=[
                    CriterionOption(label="Poor", id="poor", description="rude", indicators=["x"]),
                    CriterionOption(label="Good", value=1.0),
                    CriterionOption(label="N/A", na=True),
                ],
                scale_type="nominal",
                aggregation="mode",
                required=False,
            ),
            Criterion(requirement="Is rude", weight=-5.0, metadata={"k": [1, 2]}),
            Criterion(
                name="parent",
                requirement="Parent",
                weight=0.0,
                subcriteria=[
                    Criterion(name="kid1", requirement="K1", weight=1.0),
                    Criterion(
                        name="kid2",
                        requirement="K2",
                        scoring_method=ScoringMethod(
                            type=ScoringType.JSON_SCHEMA, json_schema={"type": "object"}
                        ),
                    ),
                ],
                examples={"good": [CalibrationExample(input="i", output="o", score=1.0)]},
            ),
        ],
        id="r1",
        name="Rich",
        version="2.0.1",
        domain="general",
        scale=Scale(min=1, max=5, type="discrete"),
        pass_threshold=0.6,
        guidelines="Be fair.",
        hybrid_metrics=[HybridMetric(name="bleu", type="bleu", weight=0.2)],
        metadata={"author": "me"},
    )


def test_native_round_trip_is_exact(tmp_path: Path) -> None:
    r = rich_rubric()
    assert load_data(r.to_dict()) == r
    assert Rubric.from_yaml(r.to_yaml()) == r
    assert Rubric.from_json(r.to_json()) == r
    for name in ("r.yaml", "r.json"):
        r.to_file(tmp_path / name)
        assert Rubric.from_file(tmp_path / name) == r
    assert json.loads((tmp_path / "r.json").read_text())["format"] == "rubricjudge/1"
    assert yaml.safe_load((tmp_path / "r.yaml").read_text())["criteria"][0]["requirement"] == (
        "Facts right\nand cited"
    )
    assert "requirement: |-" in r.to_yaml()  # multi-line text stays readable


@pytest.mark.parametrize("path", ALL_EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_example_round_trips_through_native(path: Path, tmp_path: Path) -> None:
    r = load_file(path)
    out = tmp_path / f"native{path.suffix}"
    dump_file(r, out)
    assert load_file(out) == r


weights = st.floats(min_value=-100, max_value=100, allow_nan=False).filter(lambda w: w != 0)
texts = st.text(min_size=1, max_size=40).filter(lambda s: s.strip() != "")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(texts, weights), min_size=1, max_size=5))
@example([("0\x85", 1.0)])  # YAML reads NEL, LS and PS as line breaks
@example([("a\u2028b\nc\r\n", -2.5), (" lead\ntrail \n\n", 1e-9)])
def test_round_trip_property(items: list[tuple[str, float]]) -> None:
    r = Rubric([Criterion(requirement=t, weight=w) for t, w in items])
    assert Rubric.from_yaml(r.to_yaml()) == r
    assert Rubric.from_json(r.to_json()) == r


def test_to_openrubricrl_refuses_penalties() -> None:
    with pytest.raises(ConfigError) as info:
        convert_rubric(
            load_file(EXAMPLES / "rubric_pkg" / "financial_analysis.json"), "openrubricrl"
        )
    message = str(info.value)
    assert "criteria[2]" in message and "-15.0" in message and "Rephrase" in message


def test_to_openrubricrl_reports_changes_and_validates() -> None:
    r = load_file(EXAMPLES / "autorubric" / "dialogue_multi_choice.yaml")
    out, changes = convert_rubric(r, "openrubricrl")
    assert sum(c["weight"] for c in out["criteria"]) == pytest.approx(1.0)
    assert [c["weight"] for c in out["criteria"]] == pytest.approx([0.4, 0.4, 0.2])
    assert "Options: 1 = 0;" in out["criteria"][1]["description"]
    text = "\n".join(changes)
    assert "weights rescaled" in text and "no options" in text and "version" in text
    back = load_data(out)  # detected and valid as OpenRubricRL
    assert back.version == "1.0.0" and back.scale == Scale()


def test_openrubricrl_round_trip_keeps_everything_it_can_hold() -> None:
    r = load_file(EXAMPLES / "openrubricrl" / "code_quality_basic.json")
    out, changes = convert_rubric(r, "openrubricrl")
    original = json.loads((EXAMPLES / "openrubricrl" / "code_quality_basic.json").read_text())
    assert out == original
    assert changes == []


def test_to_dataknobs_binary_and_penalty_levels() -> None:
    r = load_file(EXAMPLES / "rubric_pkg" / "financial_analysis.json")
    out, changes = convert_rubric(r, "dataknobs")
    crits = out["criteria"]
    assert [c["levels"][1]["id"] for c in crits] == ["met", "met", "absent"]
    assert sum(c["weight"] for c in crits) == pytest.approx(1.0)
    assert crits[2]["weight"] == pytest.approx(15 / 33)
    text = "\n".join(changes)
    assert "two levels" in text and "penalty" in text and "filled in" in text
    back = load_data(out)
    assert back.criteria[0].options and back.criteria[0].options[1].label == "Met"


def test_to_dataknobs_preserves_weighted_mean_for_positive_rubrics() -> None:
    r = Rubric(
        [
            Criterion(name="a", requirement="A", weight=3.0),
            Criterion(
                name="b",
                requirement="B",
                weight=1.0,
                options=[
                    CriterionOption(label="lo", value=0.2),
                    CriterionOption(label="hi", value=0.9),
                ],
            ),
        ]
    )
    back = load_data(convert_rubric(r, "dataknobs")[0])
    assert back.compute_score({"a": "Met", "b": "hi"}) == pytest.approx(
        r.compute_score({"a": "MET", "b": "hi"})
    )
    assert back.compute_score({"a": "Unmet", "b": "lo"}) == pytest.approx(
        r.compute_score({"a": "UNMET", "b": "lo"})
    )


def test_dataknobs_round_trip_is_exact_for_dataknobs_rubrics() -> None:
    data = yaml.safe_load((EXAMPLES / "dataknobs" / "quiz_quality.yaml").read_text())
    out, changes = convert_rubric(load_data(data), "dataknobs")
    for level in data["criteria"][0]["levels"]:
        level.setdefault("indicators", [])
    data["criteria"][0]["required"] = True
    data["metadata"] = {}
    assert out == data and changes == []


def test_to_dataknobs_flattens_subcriteria_and_rejects_metrics() -> None:
    r = load_file(EXAMPLES / "openrubricrl" / "code_quality_basic.json")
    out, changes = convert_rubric(r, "dataknobs")
    assert [c["id"] for c in out["criteria"]] == [
        "correctness",
        "naming",
        "formatting",
        "efficiency",
    ]
    assert [c["weight"] for c in out["criteria"]] == pytest.approx([0.5, 0.15, 0.15, 0.2])
    assert any("flattened" in c for c in changes)
    metric = Rubric(
        [Criterion(requirement="x", scoring_method=ScoringMethod(type="metric", metric="bleu"))]
    )
    with pytest.raises(ConfigError, match="'metric'"):
        convert_rubric(metric, "dataknobs")


def test_native_conversion_reports_nothing_and_formats_are_checked() -> None:
    assert convert_rubric(rich_rubric(), "native")[1] == []
    with pytest.raises(ConfigError, match="does not write"):
        convert_rubric(rich_rubric(), "autorubric")
    with pytest.raises(ConfigError, match="unknown rubric format"):
        rich_rubric().to_dict(format="yaml")


def test_load_text_json_and_yaml_agree() -> None:
    r = rich_rubric()
    assert load_text(r.to_json(), kind="json") == load_text(r.to_yaml(), kind="yaml") == r
