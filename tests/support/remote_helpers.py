"""A dataset and a deterministic scripted server answer shared by the executor tests."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._model._rubric import Criterion, CriterionOption, Rubric
from tests.support.chat_server import Reply, schema_of

PAIR = re.compile(r"SUBMISSION-(\d+).*REQUIREMENT-(\d+)", re.DOTALL)


def rubric() -> Rubric:
    return Rubric(
        [
            Criterion(name="c0", requirement="REQUIREMENT-0 holds.", weight=3),
            Criterion(name="c1", requirement="REQUIREMENT-1 holds.", weight=1),
            Criterion(
                name="c2",
                requirement="REQUIREMENT-2: the tone",
                options=[
                    CriterionOption(label="cold", value=0.0),
                    CriterionOption(label="warm", value=1.0),
                ],
            ),
        ]
    )


def dataset(n: int) -> RubricDataset:
    items = [DataItem(submission=f"SUBMISSION-{i} text", id=f"it{i}") for i in range(n)]
    return RubricDataset(prompt="Answer.", rubric=rubric(), items=items)


def user_text(body: Any) -> str:
    return str(next(m["content"] for m in body["messages"] if m["role"] == "user"))


def pair(body: Any) -> tuple[str, str]:
    """(item id, criterion) a chat request asks about."""
    m = PAIR.search(user_text(body))
    assert m is not None
    return f"it{m.group(1)}", f"c{m.group(2)}"


def answer(body: Any, *, delay: float = 0.0) -> Reply:
    """An answer that depends on the question only: each enum gets a hashed choice."""
    schema = schema_of(body) or {}
    seed = int(hashlib.sha256(user_text(body).encode()).hexdigest(), 16)
    out: dict[str, Any] = {}
    for i, (key, spec) in enumerate(schema.get("properties", {}).items()):
        if "enum" in spec:
            out[key] = spec["enum"][(seed >> i) % len(spec["enum"])]
        elif spec.get("type") == "integer":
            out[key] = spec.get("minimum", 0)
        else:
            out[key] = "because"
    return Reply.json(out, delay=delay)
