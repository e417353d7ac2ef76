"""Labelled cases for ``authored_agreement.py``: one (item, criterion, human label) each.

Datasets are rubricjudge dataset files whose items carry ``metadata.split`` (``dev``
or ``test``, by question); the bundled LLM-Rubric dialogues are split by item id.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rubricjudge import CriterionVerdict, Rubric, RubricDataset, load_example_dataset

HERE = Path(__file__).resolve().parent / "data"
DATASETS: dict[str, str] = {
    "pilot_physics": str(HERE / "pilot_physics.json"),
    "authored_mixed": str(HERE / "authored_mixed.json"),
    "llm_rubric": "example:llm_rubric_microsoft",
}
for extra in sorted(HERE.glob("*.json")):
    DATASETS.setdefault(extra.stem, str(extra))


@dataclass(frozen=True)
class Case:
    """One labelled judgment to make."""

    item_key: str
    rubric: Rubric
    submission: Any
    query: str | None
    leaf: int
    gold: str
    penalty: bool
    multi_choice: bool
    correct_answer: bool
    split: str


def _split_of(item: Any, key: str) -> str:
    split = (item.metadata or {}).get("split")
    if split in ("dev", "test"):
        return str(split)
    digest = hashlib.sha256(key.encode()).digest()[0]
    return "dev" if digest % 2 == 0 else "test"


def load_cases(name: str, *, limit: int | None = None) -> list[Case]:
    """Every labelled leaf of every item of dataset ``name`` (the first ``limit`` items)."""
    source = DATASETS[name]
    if source.startswith("example:"):
        ds = load_example_dataset(source.removeprefix("example:"))
    else:
        ds = RubricDataset.from_file(source)
    items = ds.items[:limit] if limit else ds.items
    cases = []
    for i, item in enumerate(items):
        rubric = item.rubric or ds.rubric
        if rubric is None or item.ground_truth is None:
            continue
        key = item.id or f"#{i}"
        leaves = rubric.leaves()
        golds = [g.value if isinstance(g, CriterionVerdict) else g for g in item.ground_truth]
        correct = all(
            g == "MET"
            for c, g in zip(leaves, golds, strict=True)
            if c.weight > 0 and not c.is_multi_choice
        )
        for j, (c, gold) in enumerate(zip(leaves, golds, strict=True)):
            if gold is None:
                continue
            if not c.is_multi_choice and gold == "CANNOT_ASSESS":
                gold = "UNMET"
            cases.append(
                Case(
                    item_key=key,
                    rubric=rubric,
                    submission=item.submission,
                    query=item.query or ds.prompt,
                    leaf=j,
                    gold=str(gold),
                    penalty=c.weight < 0,
                    multi_choice=c.is_multi_choice,
                    correct_answer=correct,
                    split=_split_of(item, key),
                )
            )
    return cases


async def collect_samples(grader: Any, cases: list[Case]) -> list[Any]:
    """Grade the cases' items; (criterion, the judge's probabilities, label) per case."""
    from rubricjudge._calibration._train import Sample
    from rubricjudge._model._scoring import leaf_reports

    by_item: dict[str, list[Case]] = {}
    for c in cases:
        by_item.setdefault(c.item_key, []).append(c)
    samples = []
    for group in by_item.values():
        first = group[0]
        report = await grader.grade(
            first.rubric, first.submission, query=first.query, item_id=first.item_key
        )
        leaves = list(leaf_reports(report.report or []))
        for c in group:
            cr = leaves[c.leaf]
            if cr.probabilities:
                samples.append(Sample(cr.criterion, dict(cr.probabilities), c.gold))
    return samples
