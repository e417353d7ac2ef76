"""Dataset files: JSON, YAML and JSONL round trips, and errors that name file, item and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from rubricjudge import Criterion, CriterionOption, CriterionVerdict, Rubric
from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._errors import DatasetError, RubricJudgeError

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS


def sample() -> RubricDataset:
    rubric = Rubric(
        [
            Criterion(
                name="accuracy", weight=10.0, requirement="Factually correct", section="Content"
            ),
            Criterion(
                name="tone",
                weight=5.0,
                requirement="Friendly tone",
                options=[
                    CriterionOption(label="Cold", value=0.0),
                    CriterionOption(label="Warm", value=1.0),
                    CriterionOption(label="N/A", na=True),
                ],
            ),
            Criterion(name="rambling", weight=-4.0, requirement="Rambles"),
        ],
        name="demo",
    )
    own = Rubric([Criterion(id="q1", requirement="Answers Q1", weight=1.0)])
    return RubricDataset(
        prompt="Explain photosynthesis",
        rubric=rubric,
        name="demo-set",
        reference_submission="A reference answer.",
        metadata={"source": "unit test", "year": 2024},
        items=[
            DataItem(
                submission="Line one.\nLine two: ünïcödé ✓\n\n  indented",
                description="multi-line",
                ground_truth=[MET, "Warm", UNMET],
                id="a",
                query="What is photosynthesis?",
                metadata={"annotator": 3},
            ),
            DataItem(
                submission="Plants eat light.", description="weak", ground_truth=[CA, "N/A", MET]
            ),
            DataItem(submission="no labels", description="unlabelled"),
            DataItem(
                submission="own rubric",
                description="per item",
                rubric=own,
                ground_truth=["MET"],
                reference_submission="item reference",
                id="d",
            ),
        ],
    )


def check_equal(a: RubricDataset, b: RubricDataset) -> None:
    assert a.to_dict() == b.to_dict()
    assert (b.prompt, b.name, b.reference_submission, b.metadata) == (
        a.prompt,
        a.name,
        a.reference_submission,
        a.metadata,
    )
    assert len(b) == len(a)
    for x, y in zip(a, b, strict=True):
        assert (y.submission, y.description, y.id, y.query, y.metadata) == (
            x.submission,
            x.description,
            x.id,
            x.query,
            x.metadata,
        )
        assert y.ground_truth == x.ground_truth
        if y.ground_truth is not None:
            assert all(isinstance(v, CriterionVerdict | str) for v in y.ground_truth)
        assert (y.rubric is None) == (x.rubric is None)
        assert y.reference_submission == x.reference_submission
    assert b.rubric is not None and a.rubric is not None
    assert [c.key for c in b.rubric.criteria] == [c.key for c in a.rubric.criteria]
    assert b.rubric.criteria[0].section == "Content"
    assert b.get_item_rubric(3).criteria[0].id == "q1"
    # ground truth still scores the same after the trip
    for i, item in enumerate(a):
        if item.ground_truth is not None:
            assert b.compute_weighted_score(
                b.items[i].ground_truth or [], rubric=b.get_item_rubric(i)
            ) == a.compute_weighted_score(item.ground_truth, rubric=a.get_item_rubric(i))


@pytest.mark.parametrize("suffix", [".json", ".yaml", ".yml", ".jsonl", ".ndjson"])
def test_round_trip_through_files(tmp_path: Path, suffix: str) -> None:
    ds = sample()
    path = tmp_path / f"data{suffix}"
    ds.to_file(path)
    check_equal(ds, RubricDataset.from_file(path))
    check_equal(ds, RubricDataset.from_file(str(path)))


def test_round_trip_through_text() -> None:
    ds = sample()
    check_equal(ds, RubricDataset.from_json(ds.to_json()))
    check_equal(ds, RubricDataset.from_json(ds.to_json(indent=None)))
    check_equal(ds, RubricDataset.from_yaml(ds.to_yaml()))
    check_equal(ds, RubricDataset.from_jsonl(ds.to_jsonl()))
    check_equal(ds, RubricDataset.from_dict(ds.to_dict()))


def test_layouts() -> None:
    ds = sample()
    data = json.loads(ds.to_json())
    assert list(data) == ["name", "prompt", "rubric", "reference_submission", "metadata", "items"]
    assert data["items"][0]["ground_truth"] == ["MET", "Warm", "UNMET"]
    assert data["items"][2]["ground_truth"] is None  # autorubric writes the key even when empty
    lines = ds.to_jsonl().splitlines()
    assert len(lines) == 1 + len(ds)
    header = json.loads(lines[0])
    assert "items" not in header and header["prompt"] == "Explain photosynthesis"
    assert json.loads(lines[4])["id"] == "d"
    text = ds.to_yaml()
    assert "submission: |" in text  # multi-line submissions stay readable
    assert yaml.safe_load(text)["items"][0]["submission"] == ds.items[0].submission


def test_reads_autorubric_files_and_other_rubric_formats(tmp_path: Path) -> None:
    data = {
        "name": "from-autorubric",
        "prompt": "p",
        "rubric": [
            {"name": "a", "weight": 10.0, "requirement": "A"},
            {"name": "b", "weight": -5.0, "requirement": "B"},
        ],
        "items": [
            {"submission": "s1", "description": "d1", "ground_truth": ["MET", "UNMET"]},
            {"submission": "s2", "description": "d2", "ground_truth": None},
        ],
    }
    path = tmp_path / "autorubric.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    ds = RubricDataset.from_file(path)
    assert ds.criterion_names == ["a", "b"]
    assert ds.items[0].ground_truth == [MET, UNMET]
    assert ds.compute_weighted_score(ds.items[0].ground_truth or []) == 1.0


def test_ground_truth_mapping_in_a_file() -> None:
    text = (
        "prompt: p\nrubric:\n  - {name: a, requirement: A}\n  - {name: b, requirement: B}\n"
        "items:\n  - submission: s\n    ground_truth: {b: true, a: CANNOT_ASSESS}\n"
    )
    ds = RubricDataset.from_yaml(text)
    assert ds.items[0].ground_truth == [CA, MET]
    assert ds.items[0].description == ""


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"rubric": None, "items": []}, r"data\.json: missing required field 'prompt'"),
        ({"prompt": "p", "items": []}, r"data\.json: missing required field 'rubric'"),
        ({"prompt": "p", "rubric": None, "itms": []}, r"unknown key 'itms'; did you mean 'items'"),
        ([1, 2], r"data\.json: the top level must be an object, got list"),
        ({"prompt": 3, "rubric": None}, r"data\.json\.prompt: expected a string, got int"),
        (
            {"prompt": "p", "rubric": None, "items": [{"submission": "s"}]},
            r"data\.json: items\[0\]: the item has no rubric",
        ),
        (
            {"prompt": "p", "rubric": [{"requirement": "A"}], "items": [{"description": "d"}]},
            r"data\.json: items\[0\]: missing required field 'submission'",
        ),
        (
            {"prompt": "p", "rubric": [{"requirement": "A"}], "items": [{"submission": {"a": 1}}]},
            r"data\.json: items\[0\]\.submission: expected a string, got dict",
        ),
        (
            {
                "prompt": "p",
                "rubric": [{"requirement": "A"}],
                "items": [{"submission": "s"}, {"submission": "t", "groundtruth": ["MET"]}],
            },
            r"data\.json: items\[1\]: unknown key 'groundtruth'; did you mean 'ground_truth'",
        ),
        (
            {
                "prompt": "p",
                "rubric": [{"requirement": "A"}, {"requirement": "B"}],
                "items": [{"submission": "s", "ground_truth": ["MET", "sometimes"]}],
            },
            r"data\.json: items\[0\]\.ground_truth\[1\]: verdict 'sometimes'",
        ),
        (
            {
                "prompt": "p",
                "rubric": [{"requirement": "A"}],
                "items": [{"submission": "s", "ground_truth": "MET"}],
            },
            r"data\.json: items\[0\]\.ground_truth: expected a list",
        ),
        (
            {
                "prompt": "p",
                "rubric": [{"requirement": "A"}],
                "items": [{"submission": "s", "id": 1.5}],
            },
            r"data\.json: items\[0\]\.id: expected a string, got float",
        ),
    ],
)
def test_file_errors_name_file_item_and_field(tmp_path: Path, data: object, message: str) -> None:
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DatasetError, match=message):
        RubricDataset.from_file(path)


def test_bad_rubric_inside_a_dataset_names_its_place(tmp_path: Path) -> None:
    data = {
        "prompt": "p",
        "rubric": [{"requirement": "A"}],
        "items": [{"submission": "s", "rubric": [{"requirement": "B", "weight": "heavy"}]}],
    }
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RubricJudgeError, match=r"data\.json: items\[0\]\.rubric") as e:
        RubricDataset.from_file(path)
    assert "weight" in str(e.value)


def test_jsonl_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    header = json.dumps({"prompt": "p", "rubric": [{"name": "a", "requirement": "A"}]})
    path.write_text(
        header + "\n" + '{"submission": "ok"}\n\n{"submission": "x", "ground_truth": ["nope"]}\n'
    )
    with pytest.raises(
        DatasetError, match=r"data\.jsonl line 4: items\[1\]\.ground_truth\[0\].*'nope'"
    ):
        RubricDataset.from_file(path)
    path.write_text(header + "\n{not json}\n")
    with pytest.raises(DatasetError, match=r"data\.jsonl line 2: not valid JSON"):
        RubricDataset.from_file(path)
    path.write_text('{"submission": "s"}\n')
    with pytest.raises(DatasetError, match=r"line 1: the first line must be the dataset header"):
        RubricDataset.from_file(path)
    path.write_text(header[:-1] + ', "items": []}\n')
    with pytest.raises(DatasetError, match=r"line 1: unknown key 'items'"):
        RubricDataset.from_file(path)
    path.write_text("\n\n")
    with pytest.raises(DatasetError, match=r"data\.jsonl: empty"):
        RubricDataset.from_file(path)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"dataset file '.*missing\.json' not found"):
        RubricDataset.from_file(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"prompt": "p",')
    with pytest.raises(DatasetError, match=r"bad\.json: not valid JSON"):
        RubricDataset.from_file(bad)
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("prompt: [unclosed\n")
    with pytest.raises(DatasetError, match=r"bad\.yaml: not valid YAML"):
        RubricDataset.from_file(bad_yaml)


def test_yaml_never_builds_objects(tmp_path: Path) -> None:
    path = tmp_path / "evil.yaml"
    path.write_text("prompt: !!python/object/apply:os.system ['echo hacked']\nrubric: null\n")
    with pytest.raises(DatasetError, match="not valid YAML"):
        RubricDataset.from_file(path)


def test_a_file_with_a_repeated_item_id_is_refused(tmp_path: Path) -> None:
    ds = RubricDataset(prompt="q", rubric=Rubric([Criterion(name="a", requirement="A")]))
    for i in range(3):
        ds.add_item(submission=f"s{i}", id=f"x{i}")
    path = tmp_path / "d.jsonl"
    ds.to_file(path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines, lines[-1]]) + "\n")  # x2 once more, at the end
    with pytest.raises(DatasetError, match=r"items\[3\]\.id: 'x2' is already used"):
        RubricDataset.from_file(path)
