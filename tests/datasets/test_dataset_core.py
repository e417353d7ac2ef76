"""RubricDataset / DataItem: autorubric's API, validation, scoring, splits."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from rubricjudge import Criterion, CriterionOption, CriterionVerdict, Rubric, VerdictError
from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._errors import DatasetError

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS


def rubric() -> Rubric:
    return Rubric(
        [
            Criterion(name="accuracy", weight=10.0, requirement="Factually correct"),
            Criterion(name="clarity", weight=5.0, requirement="Clear and concise"),
            Criterion(
                name="tone",
                weight=5.0,
                requirement="Friendly tone",
                options=[
                    CriterionOption(label="Cold", value=0.0),
                    CriterionOption(label="Neutral", value=0.5),
                    CriterionOption(label="Warm", value=1.0),
                    CriterionOption(label="N/A", na=True),
                ],
            ),
            Criterion(name="rambling", weight=-4.0, requirement="Rambles"),
        ]
    )


def test_autorubric_quick_example() -> None:
    ds = RubricDataset(name="photosynthesis-eval", prompt="Explain photosynthesis", rubric=rubric())
    ds.add_item(
        submission="Photosynthesis is the process by which plants convert sunlight...",
        description="Good response",
        ground_truth=[MET, MET, "Warm", UNMET],
    )
    ds.add_item("Plants eat light.", "Weak", ground_truth=["UNMET", "MET", "cold", "MET"])
    assert len(ds) == 2
    assert [it.description for it in ds] == ["Good response", "Weak"]
    # values are normalised: strings to verdicts, labels to the option's own spelling
    assert ds.items[1].ground_truth == [UNMET, MET, "Cold", MET]
    assert ds.criterion_names == ["accuracy", "clarity", "tone", "rambling"]
    assert ds.num_criteria == 4
    assert ds.total_positive_weight == 20.0


def test_ground_truth_spellings_and_mappings() -> None:
    ds = RubricDataset(prompt="p", rubric=rubric())
    ds.add_item("s", ground_truth={"tone": "n/a", "rambling": False, "accuracy": 1, "clarity": CA})
    assert ds.items[0].ground_truth == [MET, CA, "N/A", UNMET]
    item = DataItem(submission="s", ground_truth=[True, "unmet", "Neutral", 0])  # type: ignore[list-item]
    ds2 = RubricDataset(prompt="p", rubric=rubric(), items=[item])
    assert ds2.items[0].ground_truth == [MET, UNMET, "Neutral", UNMET]
    assert item.ground_truth == [True, "unmet", "Neutral", 0]  # the caller's object is untouched


@pytest.mark.parametrize(
    ("truth", "message"),
    [
        ([MET, MET, "Warm"], r"items\[0\]\.ground_truth: got 3 verdicts for 4 leaf criteria"),
        ([MET, MET, "Hot", MET], r"items\[0\]\.ground_truth\[2\].*'Hot'.*'Cold', 'Neutral'"),
        ([MET, "maybe", "Warm", MET], r"items\[0\]\.ground_truth\[1\].*'maybe'"),
        ([MET, MET, MET, MET], r"items\[0\]\.ground_truth\[2\].*multi-choice"),
        ({"accuracy": MET}, r"items\[0\]\.ground_truth: no verdict for criterion 'clarity'"),
        ({"acuracy": MET}, r"ground_truth\['acuracy'\]: unknown.*did you mean 'accuracy'"),
        ("MET", r"items\[0\]\.ground_truth: expected a list or a mapping"),
    ],
)
def test_add_item_validates_ground_truth(truth: object, message: str) -> None:
    ds = RubricDataset(prompt="p", rubric=rubric())
    with pytest.raises(DatasetError, match=message):
        ds.add_item("s", "d", ground_truth=truth)  # type: ignore[arg-type]
    assert len(ds) == 0


def test_dataset_errors_are_value_errors_too() -> None:
    ds = RubricDataset(prompt="p", rubric=rubric())
    with pytest.raises(ValueError, match="ground_truth"):
        ds.add_item("s", "d", ground_truth=[MET])


def test_add_item_needs_a_rubric_and_unique_ids() -> None:
    ds = RubricDataset(prompt="p")
    with pytest.raises(DatasetError, match=r"items\[0\]: the item has no rubric.*no global rubric"):
        ds.add_item("s", "d")
    ds.add_item("s", "d", rubric=Rubric([Criterion(requirement="r")]), id="a")
    with pytest.raises(DatasetError, match=r"items\[1\]\.id: 'a' is already used"):
        ds.add_item("t", "d", rubric=Rubric([Criterion(requirement="r")]), id="a")
    with pytest.raises(DatasetError, match=r"items\[0\]\.submission: expected a string"):
        RubricDataset(prompt="p", rubric=rubric(), items=[DataItem(submission=3)])  # type: ignore[arg-type]


def test_per_item_rubric_reference_and_query() -> None:
    own = Rubric([Criterion(weight=1.0, requirement="Correct answer for Q1")])
    ds = RubricDataset(
        prompt="Answer the question",
        rubric=None,
        items=[DataItem(submission="a", description="Q1", rubric=own, ground_truth=[MET])],
        reference_submission="global reference",
    )
    ds.add_item(
        "b", "Q2", ground_truth=["UNMET"], rubric=own, reference_submission="mine", query="Q2?"
    )
    assert ds.get_item_rubric(0) is own
    assert ds.get_item_reference_submission(0) == "global reference"
    assert ds.get_item_reference_submission(1) == "mine"
    assert ds.get_item_query(0) == "Answer the question"
    assert ds.get_item_query(1) == "Q2?"
    with pytest.raises(DatasetError, match="no global rubric"):
        _ = ds.criterion_names
    with pytest.raises(DatasetError, match="no global rubric"):
        _ = ds.num_criteria
    with pytest.raises(DatasetError, match="no rubric given"):
        ds.compute_weighted_score([MET])
    assert ds.compute_weighted_score([MET], rubric=ds.get_item_rubric(0)) == 1.0
    # the global rubric wins only when the item has none
    glob = RubricDataset(prompt="p", rubric=rubric())
    glob.add_item("x", ground_truth=[MET], rubric=own)
    glob.add_item("y")
    assert glob.get_item_rubric(0) is own
    assert glob.get_item_rubric(1) is glob.rubric


def test_compute_weighted_score_matches_the_rubric() -> None:
    ds = RubricDataset(prompt="p", rubric=rubric())
    # (10 + 0 + 0.5 * 5 - 4) / 20
    assert ds.compute_weighted_score([MET, UNMET, "Neutral", MET]) == pytest.approx(8.5 / 20)
    assert ds.compute_weighted_score([MET, UNMET, "Neutral", MET], normalize=False) == 8.5
    # N/A and CANNOT_ASSESS leave the denominator (autorubric's SKIP)
    assert ds.compute_weighted_score([MET, CA, "N/A", UNMET]) == 1.0
    # under ZERO both count with no credit: an N/A option follows the strategy too
    got = ds.compute_weighted_score([MET, CA, "N/A", UNMET], cannot_assess_strategy="zero")
    assert got == pytest.approx(10 / 20)
    with pytest.raises(VerdictError, match="'Hot'"):
        ds.compute_weighted_score([MET, MET, "Hot", MET])
    for verdicts in ([MET, MET, "Warm", UNMET], [UNMET, CA, "Cold", MET]):
        assert ds.compute_weighted_score(verdicts) == ds.rubric.compute_score(verdicts)  # type: ignore[union-attr]


def test_hierarchical_ground_truth_is_per_leaf() -> None:
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
            Criterion(name="B", requirement="b"),
        ]
    )
    ds = RubricDataset(prompt="p", rubric=tree)
    ds.add_item("s", ground_truth={"B": "MET", "a2": "UNMET", "a1": "MET"})
    assert ds.items[0].ground_truth == [MET, UNMET, MET]
    assert ds.num_criteria == 3
    assert ds.criterion_names == ["a1", "a2", "B"]
    # A = 1/2; (2 * 0.5 + 10) / 12
    assert ds.compute_weighted_score(ds.items[0].ground_truth or []) == pytest.approx(11 / 12)


# -- splits ------------------------------------------------------------------------------
def labelled(n: int, seed: int = 7) -> RubricDataset:
    rng = random.Random(seed)
    ds = RubricDataset(prompt="p", rubric=rubric())
    for i in range(n):
        truth = [
            rng.choices([MET, UNMET, CA], weights=[0.7, 0.25, 0.05])[0],
            rng.choices([MET, UNMET], weights=[0.15, 0.85])[0],
            rng.choices(["Cold", "Neutral", "Warm", "N/A"], weights=[0.1, 0.3, 0.5, 0.1])[0],
            rng.choices([MET, UNMET], weights=[0.5, 0.5])[0],
        ]
        ds.add_item(f"s{i}", f"d{i}", ground_truth=truth, id=f"i{i}")
    return ds


def _counts(ds: RubricDataset) -> Counter[tuple[int, str]]:
    return Counter(
        (pos, getattr(v, "value", v)) for it in ds for pos, v in enumerate(it.ground_truth or [])
    )


def test_split_sizes_order_and_reproducibility() -> None:
    ds = labelled(60)
    train, test = ds.split_train_test(20, seed=3)
    assert (len(train), len(test)) == (20, 40)
    ids = [it.id for it in train] + [it.id for it in test]
    assert sorted(ids) == sorted(it.id for it in ds)
    order = {it.id: i for i, it in enumerate(ds)}
    assert [order[it.id] for it in train] == sorted(order[it.id] for it in train)
    again, _ = ds.split_train_test(20, seed=3)
    assert [it.id for it in again] == [it.id for it in train]
    other, _ = ds.split_train_test(20, seed=4)
    assert [it.id for it in other] != [it.id for it in train]
    assert train.rubric is ds.rubric and train.prompt == ds.prompt and train.name == ds.name
    assert ds.split_train_test(0)[0].items == [] and len(ds.split_train_test(60)[0]) == 60


def test_split_errors() -> None:
    ds = labelled(5)
    with pytest.raises(DatasetError, match="n_train must be between 0 and 5.*got 6"):
        ds.split_train_test(6)
    with pytest.raises(DatasetError, match="got -1"):
        ds.split_train_test(-1)
    ds.add_item("no truth")
    with pytest.raises(DatasetError, match=r"items\[5\] has no ground_truth.*stratify=False"):
        ds.split_train_test(2)
    train, test = ds.split_train_test(2, stratify=False, seed=1)
    assert len(train) + len(test) == 6


@pytest.mark.parametrize("n_train", [30, 100, 150])
def test_stratified_split_keeps_per_criterion_proportions(n_train: int) -> None:
    ds = labelled(200)
    total = _counts(ds)
    worst_random = 0.0
    for seed in range(5):
        train, test = ds.split_train_test(n_train, seed=seed)
        got = _counts(train)
        for key, count in total.items():
            expected = count * n_train / len(ds)
            assert abs(got[key] - expected) <= 1.0, (key, got[key], expected)
        rnd, _ = ds.split_train_test(n_train, stratify=False, seed=seed)
        rc = _counts(rnd)
        worst_random = max(
            worst_random, *(abs(rc[k] - c * n_train / 200) for k, c in total.items())
        )
    # a plain shuffle does far worse on the same data: the stratification is doing the work
    assert worst_random > 3
