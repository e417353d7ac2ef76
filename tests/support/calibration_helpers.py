"""A judge that says "yes" too readily, and a labelled dataset it can be calibrated on."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.support.chat_server import Reply


def biased(body: Any) -> Reply:
    """'yes' always; P(yes) 0.85 when the item's hidden label is MET, 0.6 when UNMET."""
    user = body["messages"][1]["content"]
    if '"quote"' in user:
        return Reply.json({"quote": ""})
    gold = re.search(r"\[label (MET|UNMET)\]", user)
    p_yes = 0.85 if gold and gold.group(1) == "MET" else 0.6
    return Reply.answer("answer", "yes", {"yes": p_yes, "no": 1 - p_yes})


def labelled(tmp_path: Path, n: int = 60) -> Path:
    rubric = {
        "format": "rubricjudge/1",
        "name": "r",
        "criteria": [
            {"name": "a", "requirement": "States A", "weight": 1.0},
            {"name": "b", "requirement": "States B", "weight": 1.0},
        ],
    }
    items = []
    for i in range(n):
        ga, gb = ("MET" if i % 2 else "UNMET"), ("MET" if i % 3 else "UNMET")
        # one label in the text per criterion would be ambiguous: the judge sees item-level labels
        items.append(
            {
                "id": f"x{i}",
                "submission": f"answer {i} [label {ga}]",
                "ground_truth": [ga, ga if i % 5 else gb],
            }
        )
    path = tmp_path / "labelled.json"
    path.write_text(json.dumps({"prompt": "q", "rubric": rubric, "items": items}))
    return path
