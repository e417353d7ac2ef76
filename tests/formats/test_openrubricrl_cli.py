"""``rubricjudge create-template`` and ``rubricjudge migrate`` through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from rubricjudge import Rubric
from rubricjudge._cli.main import main
from rubricjudge._formats._load import load_data
from rubricjudge._formats._migrate import PLACEHOLDER, migrate_openrubricrl

V1 = {
    "name": "old_rubric",
    "domain": "chatbots",
    "criteria": [
        {
            "name": "correctness",
            "description": "Is it right?",
            "weight": 5,
            "examples": {"excellent": [{"input": "q", "output": "a", "score": 9}]},
        },
        {"name": "style", "description": "Is it nice?", "weight": 3},
        {"name": "speed", "description": "Is it quick?", "weight": 2},
    ],
}


@pytest.mark.parametrize("domain", ["code", "dialogue", "creative_writing", "reasoning", "general"])
def test_template_is_valid_openrubricrl(
    domain: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t.json"
    args = ["create-template", "my_rubric", "--domain", domain, "-o", str(out)]
    assert main([*args, "--scale-min", "1", "--scale-max", "5"]) == 0
    data = json.loads(out.read_text())
    rubric = load_data(data, format="openrubricrl")
    assert rubric.name == "my_rubric" and rubric.domain == domain
    assert rubric.scale is not None and (rubric.scale.min, rubric.scale.max) == (1.0, 5.0)
    assert rubric.criteria[0].examples and rubric.criteria[1].subcriteria
    for examples in rubric.criteria[0].examples.values():
        assert all(1.0 <= (ex.score or 0) <= 5.0 for ex in examples)
    assert main(["validate", str(out)]) == 0


def test_template_refuses_to_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.yaml"
    out.write_text("mine\n")
    assert main(["create-template", "x", "-o", str(out)]) == 1
    assert "--force" in capsys.readouterr().err
    assert out.read_text() == "mine\n"
    assert main(["create-template", "x", "-o", str(out), "--force"]) == 0
    assert Rubric.from_file(out).name == "x"


def test_template_stdout_and_bad_scale(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["create-template", "x"]) == 0
    data = yaml.safe_load(capsys.readouterr().out)
    assert data["scale"] == {"min": 0.0, "max": 10.0, "type": "continuous"}
    assert main(["create-template", "x", "--scale-min", "5", "--scale-max", "5"]) == 1
    assert "greater than" in capsys.readouterr().err


def test_migrate_library_reports_every_change() -> None:
    result = migrate_openrubricrl(V1, name="ignored", placeholder_explanations=True)
    assert result.ok
    d = result.data
    assert d["version"] == "1.0.0" and d["domain"] == "general"
    assert [c["weight"] for c in d["criteria"]] == [0.5, 0.3, 0.2]
    weight_changes = {c.path: (c.old, c.new) for c in result.changes if c.path.endswith("weight")}
    assert weight_changes == {
        "criteria[0].weight": (5.0, 0.5),
        "criteria[1].weight": (3.0, 0.3),
        "criteria[2].weight": (2.0, 0.2),
    }
    assert any(c.review and c.new == PLACEHOLDER for c in result.changes)
    assert V1["criteria"][0]["weight"] == 5  # the input is not changed
    load_data(d, format="openrubricrl")


def test_migrate_refuses_missing_explanations_by_default() -> None:
    result = migrate_openrubricrl(V1)
    assert not result.ok
    assert [p.path for p in result.problems] == ["criteria[0].examples.excellent[0].explanation"]


@pytest.mark.parametrize(
    ("weights", "expected"),
    [([1, 1, 1], [0.333333, 0.333333, 0.333334]), ([0.2, 0.2, 0.1], [0.4, 0.4, 0.2])],
)
def test_weights_sum_to_one(weights: list[float], expected: list[float]) -> None:
    data = {
        "name": "w",
        "version": "1.0",
        "scale": {"min": 0, "max": 1},
        "criteria": [
            {"name": f"c{i}", "description": "d", "weight": w} for i, w in enumerate(weights)
        ],
    }
    result = migrate_openrubricrl(data)
    got = [c["weight"] for c in result.data["criteria"]]
    assert got == expected
    assert abs(sum(got) - 1.0) < 1e-9
    assert result.data["version"] == "1.0.0"
    load_data(result.data, format="openrubricrl")


@pytest.mark.parametrize(
    ("patch", "path"),
    [
        ({"version": "one"}, "version"),
        ({"criteria": [{"name": "a", "description": "d", "weight": -1}]}, "criteria[0].weight"),
        ({"criteria": [{"name": "a", "description": "d", "weight": 0}]}, "criteria"),
        ({"criteria": []}, "criteria"),
    ],
)
def test_migrate_problems(patch: dict[str, object], path: str) -> None:
    result = migrate_openrubricrl({**V1, **patch}, placeholder_explanations=True)
    assert not result.ok
    assert path in [p.path for p in result.problems]


def test_already_v2_has_no_changes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = Path(__file__).parents[2] / "examples" / "openrubricrl" / "code_quality_basic.json"
    result = migrate_openrubricrl(json.loads(src.read_text()))
    assert result.ok and result.changes == []


def test_migrate_cli_writes_next_to_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "old.yaml"
    src.write_text(yaml.safe_dump(V1))
    before = src.read_text()
    assert main(["migrate", str(src)]) == 1  # missing explanation: refused, nothing written
    assert not (tmp_path / "old.v2.yaml").exists()
    assert "explanation" in capsys.readouterr().err
    assert main(["migrate", str(src), "--placeholder-explanations"]) == 0
    captured = capsys.readouterr()
    assert "'correctness': 5 -> 0.5" in captured.out
    assert "[review]" in captured.out
    assert "'chatbots'" in captured.out
    out = tmp_path / "old.v2.yaml"
    assert Rubric.from_file(out).version == "1.0.0"
    assert src.read_text() == before
    # an existing output needs --force; -o picks another path and kind
    assert main(["migrate", str(src), "--placeholder-explanations"]) == 1
    other = tmp_path / "new.json"
    assert main(["migrate", str(src), "--placeholder-explanations", "-o", str(other)]) == 0
    assert json.loads(other.read_text())["domain"] == "general"


def test_migrate_in_place_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "old.json"
    src.write_text(json.dumps(V1))
    assert main(["migrate", str(src), "-o", str(src), "--placeholder-explanations"]) == 1
    assert "--in-place" in capsys.readouterr().err
    assert json.loads(src.read_text()) == V1
    assert main(["migrate", str(src), "--in-place", "--placeholder-explanations"]) == 0
    migrated = json.loads(src.read_text())
    assert migrated["criteria"][0]["weight"] == 0.5
    assert list(migrated)[:5] == ["name", "version", "domain", "scale", "criteria"]
