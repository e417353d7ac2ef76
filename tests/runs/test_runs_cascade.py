"""A run records the cascade's second judge like the first: stored, counted, replayed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from rubricjudge import Criterion, Rubric, RubricDataset
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._base import JudgeRequest, JudgeResponse
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._runs._evaluate import evaluate_sync


def _unsure(req: JudgeRequest) -> Any:
    assert req.decision is not None
    probs = {str(v): 1 / len(req.decision.values) for v in req.decision.values}
    data = {req.decision.key: req.decision.values[0]}
    return JudgeResponse(data=data, raw_text=json.dumps(data), cost=0.0, probabilities=probs)


def _sure(req: JudgeRequest) -> Any:
    assert req.decision is not None
    first = req.decision.values[0]
    probs = {str(v): (0.97 if v == first else 0.03) for v in req.decision.values}
    data = {req.decision.key: first}
    return JudgeResponse(data=data, raw_text=json.dumps(data), cost=0.0, probabilities=probs)


def _run(run_dir: Path, strong: FakeJudge, *, resume: bool = False) -> None:
    ds = RubricDataset(
        prompt="q", rubric=Rubric([Criterion(name="a", weight=1, requirement="States A")])
    )
    for i in range(3):
        ds.add_item(submission=f"text {i}", id=f"i{i}")
    grader = CriterionGrader(
        FakeJudge(default=_unsure, name="cheap"),
        verdict_method="verdict-only",
        escalate_to=strong,
        below_confidence=0.7,
    )
    evaluate_sync(ds, grader, run_dir=run_dir, resume=resume)


def test_the_second_judge_is_stored_and_replayed_on_resume(tmp_path: Path) -> None:
    strong = FakeJudge(default=_sure, name="strong")
    _run(tmp_path / "run", strong)
    assert len(strong.requests) == 3
    db = sqlite3.connect(tmp_path / "run" / "run.sqlite")
    try:
        judges = sorted(r[0] for r in db.execute("SELECT judge FROM judgments"))
    finally:
        db.close()
    assert judges == ["cheap"] * 3 + ["strong"] * 3
    again = FakeJudge(default=_sure, name="strong")
    _run(tmp_path / "run", again, resume=True)
    assert again.requests == []  # replayed from the run store, not asked again
