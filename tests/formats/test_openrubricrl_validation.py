"""OpenRubricRL validation: the metadata dates OpenRubricRL checks, and the stricter rules kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from rubricjudge import Rubric, RubricError
from rubricjudge._cli.main import main
from rubricjudge._formats._load import load_file, validate_data

BAD = Path(__file__).parents[1] / "data" / "bad"
BASE: dict[str, Any] = {
    "name": "n",
    "version": "1.0.0",
    "scale": {"min": 0, "max": 10},
    "criteria": [{"name": "c", "description": "d", "weight": 1.0}],
}


def test_invalid_dates_name_the_path_and_the_fix() -> None:
    path = BAD / "openrubricrl_dates.yaml"
    with pytest.raises(RubricError) as info:
        load_file(path)
    found = {p.path: p.message for p in info.value.problems}
    assert set(found) == {"metadata.created_at", "metadata.updated_at"}
    assert "'2024-13-45' is not a date and time" in found["metadata.created_at"]
    assert "ISO 8601" in found["metadata.created_at"]
    assert "'last tuesday'" in found["metadata.updated_at"]
    assert str(path) in str(info.value)


def test_validate_command_rejects_a_bad_date(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(BAD / "openrubricrl_dates.yaml")]) != 0
    out, err = capsys.readouterr()
    assert "metadata.created_at: '2024-13-45' is not a date and time" in out
    assert "not a valid openrubricrl rubric (2 problems)" in err
    assert "Traceback" not in out + err


@pytest.mark.parametrize(
    "value",
    [
        "2024-01-01T00:00:00Z",
        "2024-01-15T10:30:00+02:00",
        "2024-01-15",  # pydantic reads a date as midnight, as OpenRubricRL's model does
        1700000000,  # a Unix time
        None,
    ],
)
def test_dates_openrubricrl_accepts_load(value: Any) -> None:
    data = {**BASE, "metadata": {"created_at": value, "updated_at": value}}
    assert validate_data(data, format="openrubricrl") == []


def test_unquoted_yaml_timestamps_load(tmp_path: Path) -> None:
    # YAML turns an unquoted timestamp into a datetime (and a bare date into a date)
    path = tmp_path / "r.yaml"
    text = yaml.safe_dump(BASE) + "metadata:\n  created_at: 2024-01-01T00:00:00Z\n"
    path.write_text(text + "  updated_at: 2024-01-15\n")
    assert load_file(path).metadata["created_at"].year == 2024


@pytest.mark.parametrize("value", ["2024-02-30", "yesterday", "", [2024, 1, 1], True])
def test_dates_openrubricrl_rejects_are_errors(value: Any) -> None:
    problems = validate_data({**BASE, "metadata": {"created_at": value}}, format="openrubricrl")
    assert [p.path for p in problems] == ["metadata.created_at"]


def test_stricter_rules_are_kept() -> None:
    # OpenRubricRL 0.1.0 accepts both of these; a scale with min >= max cannot map a score
    # and two criteria with one name cannot be told apart in reports and verdict files
    flat = {**BASE, "scale": {"min": 5, "max": 5}}
    assert [p.path for p in validate_data(flat, format="openrubricrl")] == ["scale"]
    twice = {
        **BASE,
        "criteria": [
            {"name": "c", "description": "d", "weight": 0.5},
            {"name": "c", "description": "e", "weight": 0.5},
        ],
    }
    problems = validate_data(twice, format="openrubricrl")
    assert problems and "used twice" in problems[0].message
    with pytest.raises(RubricError):
        Rubric.from_dict(twice)
