"""Build the authored datasets of benchmarks/data from their sources (``_*_src.py``).

Run: ``python benchmarks/data/build.py``. Each question becomes one rubric: three
positive criteria (weight 1), a penalty (weight -1; optional in ``authored_science``)
and, in ``authored_science``, sometimes one multi-choice criterion; each answer an
item with the labels as ground truth. Questions alternate between the ``dev`` and
``test`` splits (``metadata.split``), so no question is in both.
``tests/test_benchmark_data.py`` rebuilds every file and checks it matches.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCES = {"pilot_physics": "_pilot_src", "authored_mixed": "_mixed_src"}
SCIENCE = ("_science_physics_src", "_science_other_src")


def build(name: str, module: str) -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    src = importlib.import_module(module)
    items = []
    for qi, qd in enumerate(src.Q):
        crit = [
            {"name": f"c{i + 1}", "requirement": r, "weight": 1.0}
            for i, r in enumerate(qd["criteria"])
        ]
        crit.append({"name": "fault", "requirement": qd["penalty"], "weight": -1.0})
        rubric = {"format": "rubricate/1", "name": qd["id"], "criteria": crit}
        for ai, (text, labels) in enumerate(qd["answers"]):
            assert len(labels) == len(crit), (qd["id"], ai)
            items.append(
                {
                    "id": f"{qd['id']}-{ai + 1}",
                    "query": qd["question"],
                    "submission": text,
                    "rubric": rubric,
                    "ground_truth": labels,
                    "metadata": {"question": qd["id"], "split": "dev" if qi % 2 == 0 else "test"},
                }
            )
    return {"name": name, "prompt": "Answer the question.", "rubric": None, "items": items}


def _science_rubric(qd: dict[str, Any]) -> dict[str, Any]:
    crit: list[dict[str, Any]] = [
        {"name": f"c{i + 1}", "requirement": r, "weight": 1.0} for i, r in enumerate(qd["criteria"])
    ]
    if qd["penalty"]:
        crit.append({"name": "fault", "requirement": qd["penalty"], "weight": -1.0})
    if qd["choice"]:
        ch = qd["choice"]
        crit.append(
            {
                # one name per question: `rubricate metrics` pools criteria by name,
                # and each question's options differ
                "name": f"choice_{qd['id']}",
                "requirement": ch["requirement"],
                "weight": 1.0,
                "scale_type": ch["scale_type"],
                "options": [{"label": label, "value": value} for label, value in ch["options"]],
            }
        )
    return {"format": "rubricate/1", "name": qd["id"], "criteria": crit}


def build_science() -> dict[str, Any]:
    """authored_science.json: per question three criteria, maybe a penalty and a multi-choice one.

    Questions alternate between dev and test within each source module, so both
    splits get physics and other sciences alike.
    """
    sys.path.insert(0, str(HERE))
    extra = dict(importlib.import_module("_science_extra_src").EXTRA)
    items = []
    for module in SCIENCE:
        src = importlib.import_module(module)
        for qi, qd in enumerate(src.Q):
            qd = {**qd, "answers": [*qd["answers"], extra.pop(qd["id"])]}
            rubric = _science_rubric(qd)
            n_binary = 3 + (1 if qd["penalty"] else 0)
            options = {label for label, _ in qd["choice"]["options"]} if qd["choice"] else set()
            for ai, ans in enumerate(qd["answers"]):
                where = f"{module}: {qd['id']} answer {ai + 1}"
                assert len(ans["labels"]) == n_binary, where
                truth: list[str | None] = ["MET" if c == "M" else "UNMET" for c in ans["labels"]]
                if qd["choice"]:
                    assert ans["choice"] is None or ans["choice"] in options, where
                    truth.append(ans["choice"])
                else:
                    assert ans["choice"] is None, where
                items.append(
                    {
                        "id": f"{qd['id']}-{ai + 1}",
                        "query": qd["question"],
                        "submission": ans["text"],
                        "rubric": rubric,
                        "ground_truth": truth,
                        "metadata": {
                            "question": qd["id"],
                            "split": "dev" if qi % 2 == 0 else "test",
                            "kind": ans["kind"],
                            "source": "authored",
                        },
                    }
                )
    assert not extra, f"extra answers for unknown questions: {sorted(extra)}"
    ids = [it["id"] for it in items]
    assert len(ids) == len(set(ids)), "duplicate question ids"
    data = {
        "name": "authored_science",
        "prompt": "Answer the question.",
        "rubric": None,
        "metadata": {
            "source": "written and labelled by the rubricate developers",
            "licence": "MIT",
            "split": "metadata.split of each item: dev or test, by question",
        },
        "items": items,
    }
    return data


def build_all() -> dict[str, str]:
    """Every authored dataset as the exact text of its JSON file, by file name."""
    datasets = [build(name, module) for name, module in SOURCES.items()]
    datasets.append(build_science())
    return {
        f"{d['name']}.json": json.dumps(d, indent=1, ensure_ascii=False) + "\n" for d in datasets
    }


if __name__ == "__main__":
    for file_name, text in build_all().items():
        (HERE / file_name).write_text(text, encoding="utf-8")
        print(file_name, len(json.loads(text)["items"]), "items")
