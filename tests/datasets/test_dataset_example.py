"""The bundled llm_rubric_microsoft example against the upstream TSV."""

from __future__ import annotations

import csv
import json
import os
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from rubricjudge import CriterionVerdict
from rubricjudge._datasets._bundled import example_datasets, load_example_dataset
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._errors import ConfigError

SHARED = (
    Path(os.environ.get("RUBRICJUDGE_SHARED_DATA", "/work/shared/data")) / "llm_rubric_microsoft"
)
QUESTIONS = ["Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8", "Q0"]


@pytest.fixture(scope="module")
def example() -> RubricDataset:
    return load_example_dataset("llm_rubric_microsoft")


def test_shape(example: RubricDataset) -> None:
    assert len(example) == 223
    assert example.num_criteria == 9
    rubric = example.rubric
    assert rubric is not None
    assert [c.id for c in rubric.criteria] == QUESTIONS
    for c in rubric.criteria:
        assert c.options is not None
        labels = [o.label for o in c.options]
        if c.id == "Q8":
            assert c.scale_type == "nominal" and labels == ["1", "2", "3"] and c.weight == 0.0
        else:
            assert c.scale_type == "ordinal"
            assert [o.value for o in c.options if not o.na] == pytest.approx([0, 1 / 3, 2 / 3, 1])
            assert ("N/A" in labels) == (c.id in {"Q1", "Q3", "Q4", "Q5"})
    assert len({it.id for it in example}) == 223
    assert all(it.ground_truth is not None and len(it.ground_truth) == 9 for it in example)
    assert all(isinstance(v, str) for it in example for v in it.ground_truth or [])


def test_bundle_is_small_and_licensed() -> None:
    data = resources.files("rubricjudge").joinpath("data")
    assert data.joinpath("llm_rubric_microsoft.jsonl").read_bytes().__len__() < 1_500_000
    licence = data.joinpath("llm_rubric_microsoft.LICENSE").read_text(encoding="utf-8")
    assert "MIT License" in licence and "Microsoft" in licence
    readme = data.joinpath("llm_rubric_microsoft.README.md").read_text(encoding="utf-8")
    assert "microsoft/LLM-Rubric" in readme


def _tsv() -> dict[str, dict[str, str]]:
    path = SHARED / "human_judges_real_convs_FIXED_ANON.tsv"
    if not path.is_file():
        pytest.skip(f"upstream TSV not available at {path} (set RUBRICJUDGE_SHARED_DATA)")
    with path.open(encoding="utf-8") as f:
        return {row["text_id"]: row for row in csv.DictReader(f, delimiter="\t")}


def test_ground_truth_matches_the_tsv(example: RubricDataset) -> None:
    rows = _tsv()
    by_id = {it.id: it for it in example}
    assert set(by_id) == set(rows)
    # a few fixed rows, including dialogues without references (N/A answers), checked in full
    picks = list(rows)[:3] + [i for i, r in rows.items() if r["Q1"] == "0"][:3] + list(rows)[-2:]
    for text_id in picks:
        row, item = rows[text_id], by_id[text_id]
        want = ["N/A" if row[q] == "0" else row[q] for q in QUESTIONS]
        assert item.ground_truth == want, text_id
        assert item.metadata["annotator_id"] == int(row["annotator_id"])
        assert item.metadata["dialogue_system"] == int(row["dialogue_system"])
    # and the label distribution of every question over all rows
    for pos, q in enumerate(QUESTIONS):
        tsv = Counter("N/A" if r[q] == "0" else r[q] for r in rows.values())
        ours = Counter(str((it.ground_truth or [])[pos]) for it in example)
        assert ours == tsv, q


def test_submissions_hold_the_dialogue(example: RubricDataset) -> None:
    path = SHARED / "real_data.json"
    if not path.is_file():
        pytest.skip(f"upstream dialogues not available at {path}")
    dialogues = {d["_id"]: d for d in json.loads(path.read_text(encoding="utf-8"))}
    for item in list(example)[:5] + list(example)[-5:]:
        d = dialogues[item.id]
        assert item.query == d["topic"]
        for m in d["messages"]:
            assert (m["content"] or "").strip() in item.submission
        has_sources = "Sources given to the assistant (each page" in item.submission
        assert has_sources == (d["ref"] is not None)


def test_scores_from_ground_truth(example: RubricDataset) -> None:
    scores = [example.compute_weighted_score(it.ground_truth or []) for it in example]
    assert all(0.0 <= s <= 1.0 for s in scores)
    first = example.items[0]
    # hand-computed for the first dialogue from its labels (Q8 weighs nothing; N/A skipped)
    values = {"1": 0.0, "2": 1 / 3, "3": 2 / 3, "4": 1.0}
    labels = [v for q, v in zip(QUESTIONS, first.ground_truth or [], strict=True) if q != "Q8"]
    counted = [values[v] for v in labels if v != "N/A"]
    assert scores[0] == pytest.approx(sum(counted) / len(counted))
    assert CriterionVerdict.MET not in (first.ground_truth or [])


def test_stratified_split_of_the_example(example: RubricDataset) -> None:
    train, test = example.split_train_test(80, seed=11)
    assert (len(train), len(test)) == (80, 143)
    total = Counter((p, v) for it in example for p, v in enumerate(it.ground_truth or []))
    got = Counter((p, v) for it in train for p, v in enumerate(it.ground_truth or []))
    for key, n in total.items():
        assert abs(got[key] - n * 80 / 223) <= 1.0, key


def test_unknown_example_name() -> None:
    assert example_datasets() == ["llm_rubric_microsoft", "llm_rubric_microsoft_chat"]
    with pytest.raises(
        ConfigError,
        match=r"no example dataset 'llm_rubric_microsft'; did you mean 'llm_rubric_microsoft'",
    ):
        load_example_dataset("llm_rubric_microsft")


def test_the_chat_form_holds_the_same_dialogues_as_conversations(example: RubricDataset) -> None:
    from rubricjudge.conversations import Conversation

    chat = load_example_dataset("llm_rubric_microsoft_chat")
    assert [it.id for it in chat] == [it.id for it in example]
    assert [it.ground_truth for it in chat] == [it.ground_truth for it in example]
    assert chat.rubric == example.rubric
    data = resources.files("rubricjudge").joinpath("data")
    assert data.joinpath("llm_rubric_microsoft_chat.jsonl").read_bytes().__len__() < 1_500_000
    assert "MIT License" in data.joinpath("llm_rubric_microsoft_chat.LICENSE").read_text()
    path = SHARED / "real_data.json"
    if not path.is_file():
        pytest.skip(f"upstream dialogues not available at {path}")
    dialogues = {d["_id"]: d for d in json.loads(path.read_text(encoding="utf-8"))}
    for item in list(chat)[:5] + list(chat)[-5:]:
        conv = item.submission
        assert isinstance(conv, Conversation)
        d = dialogues[item.id]
        system, *turns = conv.messages
        assert system.role == "system"
        assert ("Sources given to the assistant (each page" in system.content) == (
            d["ref"] is not None
        )
        assert [(m.role, m.content) for m in turns] == [
            (m["role"], (m["content"] or "").strip()) for m in d["messages"]
        ]
        # the text form holds the same sources and turns
        text = next(it for it in example if it.id == item.id).submission
        assert system.content in text
