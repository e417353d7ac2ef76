"""``metrics`` with two labellers: their agreement (the ceiling) beside the judge's.

The labels are written as ``rubricjudge label`` records them (item metadata), and
the figures are checked against scikit-learn and krippendorff.
"""

from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from rubricjudge import RubricDataset
from rubricjudge._cli.main import main
from rubricjudge._metrics._compute import compute_metrics
from rubricjudge._runs._result import RunResult
from tests.support.label_helpers import grade_run, write_dataset

ANA = ["MET", "MET", "UNMET", "MET", "UNMET", "MET", "MET", "UNMET", "MET", "UNMET"]
BEN = ["MET", "UNMET", "UNMET", "MET", "UNMET", "MET", "UNMET", "UNMET", "MET", "MET"]
# the scripted judge answers MET on "cause" everywhere


def labelled(tmp_path: Path) -> tuple[Path, Path]:
    path = tmp_path / "ds.json"
    write_dataset(path)
    run = grade_run(path, tmp_path / "run")
    raw = json.loads(path.read_text())
    for i, (a, b) in enumerate(zip(ANA, BEN, strict=True)):
        item = raw["items"][i + 1]
        item["metadata"]["human_labels"] = {
            "cause": {
                "ana": {"label": a, "at": "2025-01-01T10:00:00.000000Z"},
                "ben": {"label": b, "at": "2025-01-01T11:00:00.000000Z"},
            },
            "brief": {"ana": {"label": "MET", "at": "2025-01-01T10:00:00.000000Z"}},
        }
        item["ground_truth"] = {"cause": b, "brief": "MET", "error": None, "clarity": None}
    path.write_text(json.dumps(raw))
    return path, run


def test_people_against_people_beside_the_judge(tmp_path: Path) -> None:
    path, run = labelled(tmp_path)
    ds = RubricDataset.from_file(path)
    report = compute_metrics(RunResult.open(run), ds)
    (cause,) = [a for a in report.labellers if a.key == "cause"]
    assert cause.labellers == ["ana", "ben"] and cause.units == 10
    assert cause.agreement == pytest.approx(np.mean(np.array(ANA) == np.array(BEN)))
    assert cause.kappa == pytest.approx(cohen_kappa_score(ANA, BEN))
    codes = [[0 if v == "MET" else 1 for v in who] for who in (ANA, BEN)]
    alpha = krippendorff.alpha(np.array(codes, dtype=float), level_of_measurement="nominal")
    assert cause.krippendorff_alpha == pytest.approx(alpha)
    judge = ["MET"] * 10
    expected = (np.mean(np.array(ANA) == "MET") + np.mean(np.array(BEN) == "MET")) / 2
    assert cause.judge_agreement == pytest.approx(expected)
    mean_kappa = (cohen_kappa_score(ANA, judge) + cohen_kappa_score(BEN, judge)) / 2
    assert np.isnan(mean_kappa) or cause.judge_kappa == pytest.approx(mean_kappa)
    assert not any(a.key == "brief" for a in report.labellers)  # one labeller only there


def test_items_left_out_are_left_out_of_the_people_too(tmp_path: Path) -> None:
    path, run = labelled(tmp_path)
    ds = RubricDataset.from_file(path)
    report = compute_metrics(RunResult.open(run), ds, exclude_ids=["item-001", "item-002"])
    (cause,) = [a for a in report.labellers if a.key == "cause"]
    assert cause.units == 8
    assert cause.kappa == pytest.approx(cohen_kappa_score(ANA[2:], BEN[2:]))


def test_the_metrics_command_prints_the_ceiling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, run = labelled(tmp_path)
    assert main(["metrics", str(run), "--dataset", str(path)]) == 0
    out = capsys.readouterr().out
    assert "people against each other (the ceiling)" in out
    assert "cause (ana, ben; 10 answers)" in out
    assert main(["metrics", str(run), "--dataset", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["labellers"][0]["labellers"] == ["ana", "ben"]
