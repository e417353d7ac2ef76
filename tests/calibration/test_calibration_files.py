"""Calibration files are checked for values and shapes (issue 23, N4).

A NaN or infinite scale or bias, a bias per label missing, labels that do not fit
the group (a position ``"0"``), repeated groups and bad confidence shares are each
refused on load with the path inside the file; before, a NaN scale made every
binary verdict MET with confidence NaN.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import ConfigError, Criterion, CriterionOption
from rubricjudge._calibration._groups import Calibration, CalibrationGroup, criterion_id, group_ids
from rubricjudge._cli.main import main

SHIPPED = Path(__file__).parents[2] / "src/rubricjudge/data/local_calibration.json"
OPTS = [CriterionOption(label=x, value=v) for x, v in (("low", 0), ("mid", 0.5), ("high", 1))]
MULTI = Criterion(name="q", weight=1, requirement="How good?", options=OPTS)
BINARY = Criterion(name="b", weight=1, requirement="Is polite")


def shipped() -> dict[str, Any]:
    """The shipped file with a penalty group beside its one group, for the cases to break."""
    data: dict[str, Any] = json.loads(SHIPPED.read_text("utf-8"))
    assert [g["id"] for g in data["groups"]] == ["pooled:positive"]
    data["groups"].append({**json.loads(json.dumps(data["groups"][0])), "id": "pooled:negative"})
    Calibration.load(write_to(data))  # valid as it stands
    return data


def write_to(data: dict[str, Any]) -> Path:
    import tempfile

    folder = Path(tempfile.mkdtemp())
    return write(folder, data)


def write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(data), "utf-8")  # json.dumps writes NaN and Infinity bare
    return path


def group(gid: str, labels: list[str], **kw: Any) -> dict[str, Any]:
    return {"id": gid, "labels": labels, "scale": 1.0, "bias": [0.0] * len(labels), "n": 30, **kw}


def test_the_shipped_calibration_loads_and_round_trips(tmp_path: Path) -> None:
    cal = Calibration.load(SHIPPED)
    cal.save(tmp_path / "again.json")
    assert Calibration.load(tmp_path / "again.json") == cal


@pytest.mark.parametrize(
    ("change", "where", "why"),
    [
        (lambda d: d["groups"][1].update(scale=float("nan")), r"groups\[1\]\.scale", "finite"),
        (lambda d: d["groups"][0].update(scale=float("inf")), r"groups\[0\]\.scale", "finite"),
        (
            lambda d: d["groups"][1]["bias"].__setitem__(0, float("-inf")),
            r"groups\[1\]\.bias\[0\]",
            "finite",
        ),
        (
            lambda d: d["groups"][1].update(bias=[0.5]),
            r"groups\[1\]\.bias",
            "1 biases for 2 labels",
        ),
        (
            lambda d: d["groups"][0].update(labels=["MET", "NO"]),
            r"groups\[0\]\.labels",
            "MET, UNMET",
        ),
        (
            lambda d: d["groups"][0].update(labels=["MET", "MET"]),
            r"groups\[0\]\.labels",
            "distinct",
        ),
        (lambda d: d["groups"][0].update(counts={"YES": 3}), r"groups\[0\]\.counts", "'YES'"),
        (lambda d: d["groups"][0].update(n=-1), r"groups\[0\]\.n", "greater than or equal"),
        (
            lambda d: d["groups"][0].update(train_accuracy_raw=1.5),
            r"groups\[0\]\.train_accuracy_raw",
            "less than",
        ),
        (
            lambda d: d["groups"][0].update(id="pooled:everything"),
            r"groups\[0\]\.id",
            "not a group id",
        ),
        (lambda d: d["groups"].append(dict(d["groups"][0])), r"groups:", r"groups\[2\] has the id"),
        # issue 32: finite but absurd (1e308 made every probability NaN)
        (lambda d: d["groups"][0].update(scale=1e308), r"groups\[0\]\.scale", "not a fitted"),
        (lambda d: d["groups"][1].update(scale=-250.0), r"groups\[1\]\.scale", "-100 to 100"),
        (
            lambda d: d["groups"][1]["bias"].__setitem__(1, 1e300),
            r"groups\[1\]\.bias",
            r"bias\[1\] is 1e\+300",
        ),
        (lambda d: d.update(confidence_shares={"abc": 0.3}), "confidence_shares", "'abc'"),
        (lambda d: d.update(confidence_shares={"0.70": 2.0}), "confidence_shares", "share 2.0"),
    ],
)
def test_a_bad_value_is_refused_naming_its_path(
    tmp_path: Path, change: Any, where: str, why: str
) -> None:
    data = shipped()
    change(data)
    with pytest.raises(ConfigError, match=rf"cal\.json: {where}.*{why}"):
        Calibration.load(write(tmp_path, data))


def test_group_labels_must_fit_the_groups_id(tmp_path: Path) -> None:
    places = "pooled:positions:ordinal:3"
    options = group_ids(MULTI)[1]
    cases = [
        (group(places, ["0", "1", "2"]), "labelled 1 to 3"),  # "0" once meant the last option
        (group(places, ["1", "2", "3", "4"]), "labelled 1 to 3"),
        (group(options, ["low", "high", "mid"]), "not the options"),  # the id hashes them in order
        (group(f"criterion:{criterion_id(MULTI)}", ["MET", "high"]), "mix"),
    ]
    for g, why in cases:
        data = {"judge": "j", "verdict_method": "verdict-only", "groups": [g]}
        with pytest.raises(ConfigError, match=rf"groups\[0\]\.labels: .*{why}"):
            Calibration.load(write(tmp_path, data))
    ok = [group(places, ["1", "2", "3"]), group(options, ["low", "mid", "high"])]
    Calibration.load(write(tmp_path, {"judge": "j", "verdict_method": "v", "groups": ok}))


def test_a_criterion_group_whose_labels_are_not_the_criterions_answers_is_an_error() -> None:
    # labels a file may hold (distinct option labels) but not those of this criterion
    wrong = CalibrationGroup(**group(f"criterion:{criterion_id(MULTI)}", ["low", "medium", "high"]))
    cal = Calibration(judge="j", verdict_method="v", groups=[wrong])
    with pytest.raises(ConfigError, match=r"criterion:.*not the answers of criterion 'q'"):
        cal.calibrate(MULTI, {"low": 0.2, "mid": 0.5, "high": 0.3})
    binary = CalibrationGroup(**group(f"criterion:{criterion_id(BINARY)}", ["low", "high"]))
    with pytest.raises(ConfigError, match="not the answers"):
        Calibration(judge="j", verdict_method="v", groups=[binary]).calibrate(
            BINARY, {"MET": 0.9, "UNMET": 0.1}
        )


def test_a_nan_scale_no_longer_reaches_the_verdicts(tmp_path: Path) -> None:
    data = shipped()
    data["groups"][1]["scale"] = float("nan")
    path = write(tmp_path, data)
    with pytest.raises(ConfigError):
        Calibration.load(path)
    good = Calibration.load(SHIPPED)
    decided = good.calibrate(BINARY, {"MET": 0.2, "UNMET": 0.8})
    assert decided is not None and decided[0] == "UNMET"


def test_dry_run_with_a_cascade_and_a_bad_file_is_a_clean_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = shipped()
    data["confidence_shares"] = {"abc": 0.3}
    path = write(tmp_path, data)
    rubric = tmp_path / "r.yaml"
    rubric.write_text("- name: polite\n  weight: 1\n  requirement: Is polite\n", "utf-8")
    answers = tmp_path / "in.jsonl"
    answers.write_text('{"submission": "hi"}\n', "utf-8")
    code = main(
        ["grade", str(rubric), str(answers), "--judge", "fake", "--calibration", str(path)]
        + ["--dry-run", "--escalate-to", "fake", "--below-confidence", "0.7"]
    )
    assert code == 1
    assert "cal.json: confidence_shares: the level 'abc'" in capsys.readouterr().err


def test_an_absurd_scale_is_a_clean_error_naming_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = shipped()
    data["groups"][0]["scale"] = 1e308  # finite: it was accepted, and every P(MET) was NaN
    path = write(tmp_path, data)
    rubric = tmp_path / "r.yaml"
    rubric.write_text("- name: polite\n  weight: 1\n  requirement: Is polite\n", "utf-8")
    code = main(
        ["grade", str(rubric), "--text", "hi", "--judge", "fake", "--calibration", str(path)]
    )
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert f"{path}: groups[0].scale: the scale is 1e+308, not a fitted value" in err


def test_an_absurd_probe_number_is_refused(tmp_path: Path) -> None:
    import base64
    from array import array

    data = shipped()
    weights = base64.b64encode(array("f", [0.5, -0.25]).tobytes()).decode()
    probe = {"dim": 2, "weights": weights, "judge_weight": 1.0, "bias": 0.0, "regularisation": 1}
    data["groups"][0]["probe"] = probe
    Calibration.load(write(tmp_path, data))  # as fitted: fine
    probe["judge_weight"] = 1e300
    with pytest.raises(ConfigError, match=r"groups\[0\]\.probe.*judge_weight is 1e\+300"):
        Calibration.load(write(tmp_path, data))
