"""``rubricjudge validate / convert / schema`` through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema_rs
import pytest
import yaml

from rubricjudge import Rubric
from rubricjudge._cli.main import main

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples"
BAD = Path(__file__).parents[1] / "data" / "bad"

# every example file, the format it is in and how many top-level criteria it has
EXPECTED = {
    "openrubricrl/code_quality_basic.json": ("openrubricrl", 3),
    "openrubricrl/dialogue_quality.yaml": ("openrubricrl", 4),
    "openrubricrl/creative_writing_advanced.json": ("openrubricrl", 3),
    "autorubric/photosynthesis.yaml": ("autorubric", 3),
    "autorubric/default_weights.json": ("autorubric", 2),
    "autorubric/dialogue_multi_choice.yaml": ("autorubric", 3),
    "autorubric/research_sections.json": ("autorubric", 3),
    "autorubric/essay_sections.yaml": ("autorubric", 4),
    "autorubric/essay_with_guidelines.yaml": ("autorubric", 3),
    "rubric_pkg/financial_analysis.json": ("autorubric", 3),
    "rubric_pkg/financial_analysis.yaml": ("autorubric", 3),
    "rubric_pkg/error_detection.yaml": ("autorubric", 3),
    "dataknobs/quiz_quality.yaml": ("dataknobs", 1),
    "dataknobs/rubrics_config.yaml": ("dataknobs", 4),
    "native/answer_quality.yaml": ("native", 4),
    "native/why_sky_blue.yaml": ("native", 4),
    "tau_bench/airline_agent.yaml": ("native", 8),
    "multimodal/rubric.yaml": ("native", 4),
}
BAD_FILES = sorted(BAD.iterdir())


def test_the_table_lists_every_example() -> None:
    found = {
        str(p.relative_to(EXAMPLES))
        for p in EXAMPLES.rglob("*")
        if p.suffix in (".json", ".yaml") and p.parent != EXAMPLES
    }
    assert found == set(EXPECTED)


@pytest.mark.parametrize(("name", "expected"), EXPECTED.items())
def test_validate_every_example(
    name: str, expected: tuple[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(EXAMPLES / name)
    assert main(["validate", path]) == 0
    out = capsys.readouterr().out
    fmt, count = expected
    assert out.startswith(f"{path}: OK ({fmt}, ") and f"{count} criteri" in out
    assert main(["validate", path, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is True and report["format"] == fmt and report["problems"] == []
    assert report["criteria"] == count
    assert main(["validate", path, "--format", fmt]) == 0  # forcing the right format agrees


@pytest.mark.parametrize("path", BAD_FILES, ids=lambda p: p.name)
def test_validate_bad_files(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(path)]) == 1
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines and all(": " in line for line in lines)
    assert str(path) in captured.err
    assert main(["validate", str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is False
    assert [f"{p['path'] or '<root>'}: {p['message']}" for p in report["problems"]] == lines


def test_validate_forced_wrong_format_fails(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "autorubric" / "photosynthesis.yaml")
    assert main(["validate", path, "--format", "openrubricrl"]) == 1
    assert "OpenRubricRL rubric is a mapping" in capsys.readouterr().out
    native = str(EXAMPLES / "native" / "answer_quality.yaml")
    assert main(["validate", native, "--format", "dataknobs"]) == 1
    out = capsys.readouterr().out
    assert "criteria[0].levels: required key 'levels' is missing" in out


def test_validate_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "missing.yaml")]) == 1
    assert "file not found" in capsys.readouterr().out


def test_convert_to_stdout_and_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = EXAMPLES / "autorubric" / "photosynthesis.yaml"
    assert main(["convert", str(src), "--to", "native"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # nothing lost
    assert Rubric.from_yaml(captured.out) == Rubric.from_file(src)
    assert yaml.safe_load(captured.out)["format"] == "rubricjudge/1"
    out = tmp_path / "quiz.json"
    assert main(["convert", str(src), "--to", "dataknobs", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "warning: " in captured.err and "penalty" in captured.err
    data = json.loads(out.read_text())
    assert data["criteria"][2]["levels"][0]["id"] == "present"
    assert main(["validate", str(out)]) == 0


def test_convert_json_input_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    src = EXAMPLES / "openrubricrl" / "dialogue_quality.yaml"
    assert main(["convert", str(src), "--to", "openrubricrl"]) == 0
    assert yaml.safe_load(capsys.readouterr().out)["version"] == "2.1.0"
    src = EXAMPLES / "openrubricrl" / "creative_writing_advanced.json"
    assert main(["convert", str(src), "--to", "native"]) == 0
    assert json.loads(capsys.readouterr().out)["scale"]["max"] == 100.0


def test_convert_never_overwrites_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "r.yaml"
    text = (EXAMPLES / "autorubric" / "photosynthesis.yaml").read_text()
    src.write_text(text)
    assert main(["convert", str(src), "--to", "native", "-o", str(src)]) == 1
    assert "never overwrites its input" in capsys.readouterr().err
    assert src.read_text() == text
    assert main(["convert", str(src), "--to", "native", "-o", str(tmp_path / "." / "r.yaml")]) == 1


def test_convert_inexpressible_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = EXAMPLES / "rubric_pkg" / "error_detection.yaml"
    out = tmp_path / "o.json"
    assert main(["convert", str(src), "--to", "openrubricrl", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "cannot write this rubric as OpenRubricRL" in err and "criteria[0]" in err
    assert not out.exists()


def test_schema_is_a_json_schema_that_accepts_native_dumps(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert schema["title"] and "format" in schema["required"]
    assert jsonschema_rs.meta.is_valid(schema)
    validator = jsonschema_rs.validator_for(schema)
    for name in EXPECTED:
        if name.endswith("rubrics_config.yaml"):
            continue
        dumped = Rubric.from_file(EXAMPLES / name).to_dict()
        errors = [e.message for e in validator.iter_errors(dumped)]
        assert errors == [], (name, errors)
    bad = {"format": "rubricjudge/1", "criteria": [{"requirement": "x", "colour": "blue"}]}
    assert not validator.is_valid(bad)
    assert not validator.is_valid({"criteria": [{"requirement": "x"}]})  # marker required


def test_openrubricrl_validate_flags(capsys: pytest.CaptureFixture[str]) -> None:
    from rubricjudge._cli.main import main as cli

    path = str(Path(__file__).parents[2] / "examples" / "openrubricrl" / "code_quality_basic.json")
    assert cli(["validate", path, "--validate-only"]) == 0
    assert "OK (openrubricrl, 3 criteria)" in capsys.readouterr().out
    assert cli(["validate", path, "--output-format", "yaml"]) == 0
    said = capsys.readouterr()
    assert said.out.startswith("name: code_quality_basic") and "OK" in said.err
