"""Benchmark data: every file loads with rubricjudge's own loader and splits by question."""

from __future__ import annotations

import collections
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from rubricjudge import CriterionVerdict, RubricDataset

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCH))

import _data  # noqa: E402

DATASETS = _data.dataset_files()
README = (_data.DATA / "README.md").read_text(encoding="utf-8")


def test_the_data_is_there():
    names = {p.name for p in DATASETS}
    assert {"authored_science.json", "pilot_physics.json", "authored_mixed.json"} <= names


@pytest.mark.parametrize("path", DATASETS, ids=lambda p: p.name)
def test_dataset_loads_and_splits_by_question(path: Path):
    ds = RubricDataset.from_file(path)
    assert ds.items, path
    splits: dict[str, set[str]] = collections.defaultdict(set)
    for item in ds.items:
        assert item.id, f"{path.name}: every item needs an id"
        assert item.ground_truth is not None, f"{path.name}: {item.id} has no labels"
        split = _data.split_of(item)
        assert split in ("dev", "test"), f"{path.name}: {item.id} has no metadata.split"
        splits[_data.question_of(item)].add(split)
    both = sorted(q for q, s in splits.items() if len(s) > 1)
    assert not both, f"{path.name}: questions in both splits: {both}"
    per_split = collections.Counter(next(iter(s)) for s in splits.values())
    assert per_split["dev"] > 0 and per_split["test"] > 0, per_split


@pytest.mark.parametrize("path", DATASETS, ids=lambda p: p.name)
def test_every_file_is_attributed_in_the_readme(path: Path):
    assert f"`{path.name}`" in README, f"benchmarks/data/README.md does not describe {path.name}"


def test_built_files_match_their_sources():
    spec = importlib.util.spec_from_file_location("_bench_build", _data.DATA / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    for file_name, text in build.build_all().items():
        on_disk = (_data.DATA / file_name).read_text(encoding="utf-8")
        assert on_disk == text, f"{file_name} differs from its source: run benchmarks/data/build.py"


def _golds(item) -> list[str | None]:
    return [g.value if isinstance(g, CriterionVerdict) else g for g in item.ground_truth]


def test_authored_science_covers_what_the_benchmark_measures():
    ds = RubricDataset.from_file(_data.DATA / "authored_science.json")
    counts = _data.case_counts(ds)
    assert counts["binary:MET"] + counts["binary:UNMET"] >= 300
    # roughly balanced, and plenty of absent penalties on correct answers
    assert 0.35 <= counts["binary:MET"] / (counts["binary:MET"] + counts["binary:UNMET"]) <= 0.65
    assert counts["penalty on a correct answer:UNMET"] >= 100
    assert counts["penalty:MET"] >= 30
    assert counts["multi-choice"] >= 50
    assert counts["off-topic:UNMET"] >= 100
    by_question: dict[str, list] = collections.defaultdict(list)
    for item in ds.items:
        by_question[_data.question_of(item)].append(item)
    assert len(by_question) >= 40
    for question, items in by_question.items():
        kinds = {it.metadata["kind"] for it in items}
        assert {"explicit", "informal", "offtopic"} <= kinds, question
        for it in items:
            leaves = (it.rubric or ds.rubric).leaves()
            golds = _golds(it)
            if it.metadata["kind"] in ("explicit", "informal"):
                # a correct answer meets every content criterion and commits no fault
                for c, g in zip(leaves, golds, strict=True):
                    if not c.is_multi_choice:
                        assert g == ("MET" if c.weight > 0 else "UNMET"), it.id
            if it.metadata["kind"] == "offtopic":
                assert all(
                    g == "UNMET"
                    for c, g in zip(leaves, golds, strict=True)
                    if not c.is_multi_choice
                ), it.id


def test_split_ids_are_disjoint_and_cover_the_dataset():
    ds = RubricDataset.from_file(_data.DATA / "authored_science.json")
    dev, test = _data.split_ids(ds, "dev"), _data.split_ids(ds, "test")
    assert dev and test and not set(dev) & set(test)
    assert len(dev) + len(test) == len(ds.items)


PAIR_FILES = _data.pair_files()


def test_there_are_enough_pairs():
    pairs = list(_data.all_pairs())
    assert len(pairs) >= 60
    sides = collections.Counter(p.better for p in pairs)
    assert min(sides.values()) >= len(pairs) // 3, sides


@pytest.mark.parametrize("path", PAIR_FILES, ids=lambda p: p.name)
def test_pairs_load_and_split_by_question(path: Path):
    pairs = _data.load_pairs(path)
    assert pairs, path
    assert f"`{path.name}`" in README, f"benchmarks/data/README.md does not describe {path.name}"
    splits: dict[str, set[str]] = collections.defaultdict(set)
    for p in pairs:
        splits[p.question].add(p.split)
    both = sorted(q for q, s in splits.items() if len(s) > 1)
    assert not both, f"{path.name}: questions in both splits: {both}"
    ids = [p.id for p in pairs]
    assert len(ids) == len(set(ids)), f"{path.name}: duplicate pair ids"


def test_authored_pairs_keep_the_datasets_split_and_prefer_the_higher_gold_score():
    ds = RubricDataset.from_file(_data.DATA / "authored_science.json")
    by_text = {(_data.question_of(it), it.submission): it for it in ds.items}
    for p in _data.load_pairs(_data.PAIRS / "authored_science_pairs.jsonl"):
        good, bad = (p.a, p.b) if p.better == "a" else (p.b, p.a)
        good_item, bad_item = by_text[(p.question, good)], by_text[(p.question, bad)]
        assert _data.split_of(good_item) == _data.split_of(bad_item) == p.split, p.id
        rubric = good_item.rubric
        assert rubric is not None
        gap = rubric.compute_score(good_item.ground_truth) - rubric.compute_score(
            bad_item.ground_truth
        )
        assert gap >= 0.5, p.id


def test_a_malformed_pair_is_refused_with_its_line(tmp_path: Path):
    bad = tmp_path / "bad.jsonl"
    row = {
        "id": "x",
        "query": "q",
        "rubric": {"format": "rubricjudge/1", "criteria": [{"requirement": "r", "weight": 1}]},
        "a": "one",
        "b": "two",
        "better": "c",
        "split": "dev",
        "question": "q",
        "source": "test",
    }

    bad.write_text(json.dumps(row) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl line 1.better"):
        _data.load_pairs(bad)
