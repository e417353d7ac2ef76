"""The labelled data under benchmarks/data: files, dev/test splits, counts and pairs.

Run: ``python benchmarks/_data.py stats`` (counts per file, split and kind of case),
``python benchmarks/_data.py ids NAME dev > dev_ids.txt`` (the item ids of one split,
for ``rubricjudge calibrate NAME.json --train-ids dev_ids.txt``), or
``python benchmarks/_data.py pairs`` (counts of the preference pairs).

Every dataset file is a rubricjudge dataset (``RubricDataset.from_file`` reads it) whose
items carry ``metadata.split`` (``dev`` or ``test``) and ``metadata.question``; the
split is by question, so no question has items in both. Preference pairs live in
``benchmarks/data/pairs/*.jsonl`` (layout in benchmarks/data/README.md).
"""

from __future__ import annotations

import argparse
import collections
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rubricjudge import CriterionVerdict, DataItem, Rubric, RubricDataset

DATA = Path(__file__).resolve().parent / "data"
PAIRS = DATA / "pairs"
SPLITS = ("dev", "test")


def dataset_files() -> list[Path]:
    """Every labelled dataset file under benchmarks/data."""
    return sorted(DATA.glob("*.json"))


def dataset_path(name: str) -> Path:
    """The file of dataset ``name`` (its file name without ``.json``)."""
    path = DATA / f"{name}.json"
    if not path.is_file():
        names = ", ".join(p.stem for p in dataset_files())
        raise SystemExit(f"no dataset {name!r} in {DATA}; known: {names}")
    return path


def question_of(item: DataItem) -> str:
    """The question an item answers: ``metadata.question``, else its rubric's name."""
    question = item.metadata.get("question")
    if question is None and item.rubric is not None:
        question = item.rubric.name
    return str(question)


def split_of(item: DataItem) -> str | None:
    """``dev`` or ``test`` from ``metadata.split``; None when the item has none."""
    split = item.metadata.get("split")
    return str(split) if split in SPLITS else None


def split_ids(ds: RubricDataset, split: str) -> list[str]:
    """The ids of the items of one split, in file order."""
    return [str(it.id) for it in ds.items if split_of(it) == split]


def _gold(value: CriterionVerdict | str | None) -> str | None:
    return value.value if isinstance(value, CriterionVerdict) else value


def case_counts(ds: RubricDataset) -> collections.Counter[str]:
    """Labelled cases by split and kind: MET/UNMET, penalties, multi-choice, off-topic."""
    counts: collections.Counter[str] = collections.Counter()
    for item in ds.items:
        rubric = item.rubric or ds.rubric
        if rubric is None or item.ground_truth is None:
            continue
        split = split_of(item) or "unsplit"
        leaves = rubric.leaves()
        golds = [_gold(g) for g in item.ground_truth]
        correct = all(
            g == "MET"
            for c, g in zip(leaves, golds, strict=True)
            if c.weight > 0 and not c.is_multi_choice
        )
        kind = item.metadata.get("kind")
        counts[f"items:{split}"] += 1
        for c, gold in zip(leaves, golds, strict=True):
            if gold is None:
                counts["unlabelled"] += 1
                continue
            if c.is_multi_choice:
                keys = ["multi-choice"]
            else:
                gold = "UNMET" if gold == "CANNOT_ASSESS" else gold
                role = "penalty" if c.weight < 0 else "positive"
                keys = [f"binary:{gold}", f"{role}:{gold}"]
                if c.weight < 0 and correct:
                    keys.append(f"penalty on a correct answer:{gold}")
                if kind == "offtopic":
                    keys.append(f"off-topic:{gold}")
            for key in keys:
                counts[key] += 1
                counts[f"{key}:{split}"] += 1
    return counts


@dataclass(frozen=True)
class Pair:
    """Two answers to one query, one of them better."""

    id: str
    query: str
    rubric: Rubric
    a: str
    b: str
    better: str
    split: str
    question: str
    source: str


_PAIR_KEYS = {"id", "query", "rubric", "a", "b", "better", "split", "question", "source", "note"}


def load_pairs(path: Path) -> list[Pair]:
    """Read one pairs file (JSON Lines), checking every line.

    Raises:
        ValueError: a line is malformed, naming the file, the line and the field.
    """
    pairs = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name} line {n}"
        row: dict[str, Any] = json.loads(line)
        unknown = set(row) - _PAIR_KEYS
        missing = _PAIR_KEYS - {"note"} - set(row)
        if unknown or missing:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}, missing {sorted(missing)}")
        if row["better"] not in ("a", "b"):
            raise ValueError(f"{where}.better: {row['better']!r} is not 'a' or 'b'")
        if row["split"] not in SPLITS:
            raise ValueError(f"{where}.split: {row['split']!r} is not 'dev' or 'test'")
        if not row["a"].strip() or not row["b"].strip() or row["a"] == row["b"]:
            raise ValueError(f"{where}: answers a and b must be two different non-empty texts")
        rubric = Rubric.from_dict(row["rubric"], source=f"{where}.rubric")
        pairs.append(
            Pair(
                id=str(row["id"]),
                query=str(row["query"]),
                rubric=rubric,
                a=str(row["a"]),
                b=str(row["b"]),
                better=str(row["better"]),
                split=str(row["split"]),
                question=str(row["question"]),
                source=str(row["source"]),
            )
        )
    return pairs


def pair_files() -> list[Path]:
    """Every preference-pairs file under benchmarks/data/pairs."""
    return sorted(PAIRS.glob("*.jsonl"))


def all_pairs() -> Iterator[Pair]:
    """Every preference pair of every pairs file."""
    for path in pair_files():
        yield from load_pairs(path)


def _stats() -> None:
    for path in dataset_files():
        ds = RubricDataset.from_file(path)
        counts = case_counts(ds)
        print(f"== {path.name}: {len(ds.items)} items")
        for key in sorted(counts):
            print(f"  {key:45} {counts[key]:5d}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("stats", help="counts per file, split and kind of case")
    ids = sub.add_parser("ids", help="the item ids of one split of a dataset")
    ids.add_argument("name")
    ids.add_argument("split", choices=SPLITS)
    sub.add_parser("pairs", help="counts of the preference pairs")
    args = ap.parse_args()
    if args.command == "stats":
        _stats()
    elif args.command == "ids":
        ds = RubricDataset.from_file(dataset_path(args.name))
        print("\n".join(split_ids(ds, args.split)))
    else:
        for path in pair_files():
            pairs = load_pairs(path)
            by = collections.Counter(f"{p.split}:{p.better}" for p in pairs)
            print(f"{path.name}: {len(pairs)} pairs", dict(sorted(by.items())))


if __name__ == "__main__":
    main()
