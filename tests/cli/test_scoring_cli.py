"""``rubricjudge score``: scores from verdict files, through the real command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import Criterion, CriterionOption, Rubric
from rubricjudge._cli.main import main

AUTORUBRIC_YAML = """\
- name: margin
  weight: 10.0
  requirement: States Q4 2023 base margin as 17.2%
- name: shapley
  weight: 8.0
  requirement: Explicitly uses Shapley attribution
- name: deliveries
  weight: -15.0
  requirement: Uses total deliveries instead of cash-only deliveries
"""


def rubric_with_sections() -> Rubric:
    return Rubric(
        [
            Criterion(name="facts", weight=6.0, requirement="Facts right", section="Content"),
            Criterion(
                name="tone",
                weight=4.0,
                requirement="Tone",
                section="Style",
                options=[
                    CriterionOption(label="Poor", value=0.0),
                    CriterionOption(label="Fair", value=0.5),
                    CriterionOption(label="Good", value=1.0),
                    CriterionOption(label="N/A", na=True),
                ],
            ),
            Criterion(name="rude", weight=-5.0, requirement="Is rude", section="Style"),
        ]
    )


def write(tmp_path: Path, name: str, content: Any) -> str:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["score", *argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.fixture
def seed_rubric(tmp_path: Path) -> str:
    return write(tmp_path, "rubric.yaml", AUTORUBRIC_YAML)


@pytest.mark.parametrize(
    ("verdicts", "score", "raw", "shown"),
    [
        (["MET", "MET", "UNMET"], 1.0, 18.0, ["MET", "MET", "UNMET"]),
        (["MET", "MET", "MET"], 3 / 18, 3.0, ["MET", "MET", "MET"]),
        ({"deliveries": True, "margin": 1, "shapley": False}, 0.0, -5.0, ["MET", "UNMET", "MET"]),
        ({"margin": "met", "shapley": "MET", "deliveries": 0}, 1.0, 18.0, ["MET", "MET", "UNMET"]),
    ],
)
def test_score_json(
    tmp_path: Path,
    seed_rubric: str,
    capsys: pytest.CaptureFixture[str],
    verdicts: Any,
    score: float,
    raw: float,
    shown: list[str],
) -> None:
    vfile = write(tmp_path, "v.json", verdicts)
    out = run_json(capsys, seed_rubric, "--verdicts", vfile)
    assert out["score"] == pytest.approx(score)
    assert out["raw_score"] == pytest.approx(raw)
    assert [r["verdict"] for r in out["report"]] == shown


@pytest.mark.parametrize(
    ("flags", "score"),
    [
        ([], 10 / 10),
        (["--cannot-assess", "zero"], 10 / 18),
        # partial credit is credit: the penalty that could not be assessed is not charged
        (["--cannot-assess", "partial"], (10 + 4) / 18),
        (["--cannot-assess", "partial", "--partial-credit", "0.2"], (10 + 1.6) / 18),
        (["--cannot-assess", "fail"], 0.0),  # (10 - 15) / 18 clamps to 0
        (["--cannot-assess", "zero", "--no-normalize"], 10.0),
        (["--cannot-assess", "fail", "--no-normalize"], -5.0),
    ],
)
def test_cannot_assess_flags(
    tmp_path: Path,
    seed_rubric: str,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    score: float,
) -> None:
    vfile = write(tmp_path, "v.json", ["MET", "CANNOT_ASSESS", "CANNOT_ASSESS"])
    out = run_json(capsys, seed_rubric, "--verdicts", vfile, *flags)
    assert out["score"] == pytest.approx(score)
    assert out["cannot_assess_count"] == 2
    policy_raw = Rubric.from_file(seed_rubric).compute_score(
        ["MET", "CANNOT_ASSESS", "CANNOT_ASSESS"],
        normalize=False,
        cannot_assess_strategy=flags[1] if flags else "skip",
        partial_credit=float(flags[3])
        if len(flags) > 3 and flags[2] == "--partial-credit"
        else 0.5,
    )
    assert out["raw_score"] == pytest.approx(policy_raw)


def test_agrees_with_python_on_native_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = rubric_with_sections()
    rfile = tmp_path / "native.yaml"
    rubric.to_file(rfile)
    for verdicts in (["MET", "Fair", "UNMET"], {"facts": "UNMET", "tone": "N/A", "rude": "MET"}):
        vfile = write(tmp_path, "v.json", verdicts)
        out = run_json(capsys, str(rfile), "--verdicts", vfile)
        assert out["score"] == pytest.approx(rubric.compute_score(verdicts))
        assert out["raw_score"] == pytest.approx(rubric.compute_score(verdicts, normalize=False))


def test_readable_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rfile = tmp_path / "native.json"
    rubric_with_sections().to_file(rfile)
    vfile = write(tmp_path, "v.json", ["MET", "Fair", "CANNOT_ASSESS"])
    assert main(["score", str(rfile), "--verdicts", vfile]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "score: 0.8 (in [0, 1])"  # (6 + 2) / 10
    assert "raw score: 8" in lines
    assert "cannot assess: 1 (counted as skip)" in lines
    assert any("MET" in line and "facts" in line for line in lines)
    assert any("Fair (0.5)" in line and "tone" in line for line in lines)
    assert any("CANNOT_ASSESS [skip]" in line and "rude" in line for line in lines)
    assert "sections:" in lines
    assert "  Content: 1 (raw 6, 1 criteria)" in lines
    assert "  Style: 0.5 (raw 2, 2 criteria)" in lines


def test_hierarchical_leaf_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree = Rubric(
        [
            Criterion(
                name="A",
                requirement="a",
                weight=2.0,
                subcriteria=[
                    Criterion(name="a1", requirement="x"),
                    Criterion(name="a2", requirement="y"),
                ],
            ),
            Criterion(name="B", requirement="b", weight=1.0),
        ]
    )
    rfile = tmp_path / "tree.yaml"
    tree.to_file(rfile)
    vfile = write(tmp_path, "v.json", {"a1": "MET", "a2": "UNMET", "B": "MET"})
    out = run_json(capsys, str(rfile), "--verdicts", vfile)
    assert out["score"] == pytest.approx((2 * 0.5 + 1) / 3)
    assert [c["criterion"]["name"] for c in out["report"][0]["children"]] == ["a1", "a2"]
    bad = write(tmp_path, "bad.json", {"A": "MET", "B": "MET"})
    assert main(["score", str(rfile), "--verdicts", bad]) == 1
    assert "has subcriteria" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (["MET", "MET"], r"v\.json: verdicts: got 2 verdicts for 3 leaf criteria"),
        (["MET", "perhaps", "MET"], r"v\.json: verdicts\[1\]: verdict 'perhaps'"),
        (
            {"margin": 1, "shapely": 1, "deliveries": 0},
            r"v\.json: verdicts\['shapely'\]: unknown.*'shapley'",
        ),
        ({"margin": 1}, r"v\.json: verdicts: no verdict for criterion 'shapley', 'deliveries'"),
        ('["MET",', r"v\.json: not valid JSON"),
        ('"MET"', r"v\.json: expected a list"),
        ([["MET"], "MET", "MET"], r"v\.json: verdicts\[0\]: verdict \['MET'\]"),
    ],
)
def test_verdict_file_errors(
    tmp_path: Path, seed_rubric: str, capsys: pytest.CaptureFixture[str], content: Any, message: str
) -> None:
    import re

    vfile = write(tmp_path, "v.json", content)
    assert main(["score", seed_rubric, "--verdicts", vfile]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rubricjudge: error: ")
    assert re.search(message, err), err
    assert len(err.strip().splitlines()) == 1


def test_usage_errors(tmp_path: Path, seed_rubric: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", seed_rubric, "--verdicts", str(tmp_path / "none.json")]) == 1
    assert "verdicts file" in capsys.readouterr().err
    vfile = write(tmp_path, "v.json", ["MET", "MET", "MET"])
    assert main(["score", seed_rubric, "--verdicts", vfile, "--partial-credit", "2"]) == 1
    assert "--partial-credit" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["score", seed_rubric, "--verdicts", vfile, "--cannot-assess", "maybe"])
    capsys.readouterr()
