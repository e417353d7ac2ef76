"""Build the authored datasets of benchmarks/data from their sources (``_*_src.py``).

Run: ``python benchmarks/data/build.py``. Each question becomes one rubric of three
positive criteria (weight 1) and one penalty (weight -1); each answer an item with
the labels as ground truth. Questions alternate between the ``dev`` and ``test``
splits (``metadata.split``), so no question is in both.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = {"pilot_physics": "_pilot_src", "authored_mixed": "_mixed_src"}


def build(name: str, module: str) -> int:
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
    data = {"name": name, "prompt": "Answer the question.", "rubric": None, "items": items}
    (HERE / f"{name}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return len(items)


if __name__ == "__main__":
    for name, module in SOURCES.items():
        print(name, build(name, module), "items")
