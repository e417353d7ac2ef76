"""The project's old name (rubricate) still works where users' files and settings carry it."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricjudge import Rubric
from rubricjudge._calibration._groups import Calibration
from rubricjudge._env import cache_home, data_home, getenv


def test_native_files_marked_with_the_old_name_still_load(tmp_path: Path) -> None:
    path = tmp_path / "old.yaml"
    path.write_text(
        "format: rubricate/1\ncriteria:\n  - name: a\n    weight: 1\n    requirement: says hi\n"
    )
    rubric = Rubric.from_file(path)
    assert [c.name for c in rubric.rubric] == ["a"]


def test_calibrations_marked_with_the_old_name_still_load() -> None:
    data = {"format": "rubricate-calibration/1", "judge": "local", "verdict_method": "auto"}
    assert Calibration.model_validate(data).judge == "local"


def test_old_environment_variables_are_read_with_a_note(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("RUBRICJUDGE_SERVE_TOKEN", raising=False)
    monkeypatch.setenv("RUBRICATE_SERVE_TOKEN", "x" * 40)
    assert getenv("SERVE_TOKEN") == "x" * 40
    assert "RUBRICATE_SERVE_TOKEN" in capsys.readouterr().err
    monkeypatch.setenv("RUBRICJUDGE_SERVE_TOKEN", "y" * 40)
    assert getenv("SERVE_TOKEN") == "y" * 40  # the new name wins


def test_old_directories_are_used_where_they_already_are(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(Path, "home", lambda: tmp_path)
    monkeypatch.delenv("RUBRICJUDGE_CACHE_DIR", raising=False)
    monkeypatch.delenv("RUBRICATE_CACHE_DIR", raising=False)
    assert cache_home() == tmp_path / ".cache" / "rubricjudge"
    (tmp_path / ".cache" / "rubricate").mkdir(parents=True)
    (tmp_path / ".local" / "share" / "rubricate").mkdir(parents=True)
    assert cache_home() == tmp_path / ".cache" / "rubricate"
    assert data_home() == tmp_path / ".local" / "share" / "rubricate"
    (tmp_path / ".cache" / "rubricjudge").mkdir()
    assert cache_home() == tmp_path / ".cache" / "rubricjudge"


def test_a_registry_version_stored_under_the_old_name_is_the_same_content() -> None:
    from rubricjudge._registry._records import content_hash, same_content

    rubric = Rubric.from_dict([{"name": "a", "weight": 1.0, "requirement": "says hi"}])
    old = content_hash(rubric, marker="rubricate/1")
    assert old != content_hash(rubric)
    assert same_content(rubric, old) and same_content(rubric, content_hash(rubric))
    assert not same_content(rubric, "0" * 64)
