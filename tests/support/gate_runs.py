"""Runs for the gate tests, made through the real grader and run store with a scripted judge.

Every item has a latent quality shared by all runs of it; a run's judge answers MET
on a criterion with probability ``quality + shift[criterion]``, drawn from its own
seed. Two runs with the same shifts and different seeds differ by noise only; a
negative shift is a known drop. ``labels=True`` adds human labels drawn the same
way (the humans see the same shifted answers: the labels track the runs).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rubricjudge import Criterion, JudgeError, Rubric, RubricDataset
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._runs._evaluate import evaluate_sync

CRITERIA = (
    ("accuracy", 10.0, "States the correct cause"),
    ("clarity", 5.0, "Is easy to follow"),
    ("brief", 3.0, "Answers in at most three sentences"),
)


def rubric(pass_threshold: float | None = 0.6) -> Rubric:
    """Three binary criteria, weights 10, 5 and 3."""
    criteria = [Criterion(name=n, weight=w, requirement=r) for n, w, r in CRITERIA]
    return Rubric(criteria, pass_threshold=pass_threshold)


def quality(index: int) -> float:
    """The latent quality of item ``index``: the same in every run."""
    return random.Random(f"quality-{index}").uniform(0.2, 0.95)


def _met(index: int, key: str, shift: Mapping[str, float], seed: int) -> bool:
    p = min(1.0, max(0.0, quality(index) + shift.get(key, 0.0)))
    return random.Random(f"{seed}-{index}-{key}").random() < p


def dataset(
    n: int,
    *,
    shift: Mapping[str, float] | None = None,
    labels: bool = False,
    seed: int = 0,
    pass_threshold: float | None = 0.6,
) -> RubricDataset:
    """``n`` items ``item-000`` ...; with ``labels``, human labels from ``seed + 1000``."""
    ds = RubricDataset(prompt="Why is the sky blue?", rubric=rubric(pass_threshold))
    for i in range(n):
        truth: list[Any] | None = None
        if labels:
            truth = [
                "MET" if _met(i, key, shift or {}, seed + 1000) else "UNMET"
                for key, _, _ in CRITERIA
            ]
        ds.add_item(submission=f"answer {i}", ground_truth=truth, id=f"item-{i:03d}")
    return ds


def judge(
    shift: Mapping[str, float], seed: int, *, fail_items: set[int] = frozenset()
) -> FakeJudge:  # type: ignore[assignment]
    """MET with probability quality + shift; a timeout on every call about ``fail_items``."""

    def reply(req: JudgeRequest) -> Any:
        index = int(str(req.tags["item"]).rsplit("-", 1)[1])
        if index in fail_items:
            return JudgeError("the judge timed out", category="timeout")
        key = str(req.tags["key"])
        verdict = "MET" if _met(index, key, shift, seed) else "UNMET"
        return {"reason": f"{key} read as {verdict}", "verdict": verdict}

    return FakeJudge(default=reply, name="scripted")


def run_dir(
    path: Path,
    n: int,
    *,
    shift: Mapping[str, float] | None = None,
    seed: int = 0,
    labels: bool = False,
    fail_items: set[int] = frozenset(),  # type: ignore[assignment]
    pass_threshold: float | None = 0.6,
) -> Path:
    """A run directory of ``n`` items graded by :func:`judge`."""
    shift = shift or {}
    ds = dataset(n, shift=shift, labels=labels, seed=seed, pass_threshold=pass_threshold)
    grader = CriterionGrader(
        judge(shift, seed, fail_items=fail_items), verdict_method="verdict-only"
    )
    evaluate_sync(ds, grader, run_dir=path, progress=False)
    return path


def jsonl(path: Path, n: int, *, shift: Mapping[str, float] | None = None, seed: int = 0) -> Path:
    """The same run as the JSONL ``rubricjudge grade -o`` writes (one report per line)."""
    shift = shift or {}
    grader = CriterionGrader(judge(shift, seed), verdict_method="verdict-only")
    result = evaluate_sync(dataset(n, shift=shift, seed=seed), grader, progress=False)
    with path.open("w", encoding="utf-8") as f:
        for report in result.reports:
            assert report is not None
            f.write(json.dumps(report.to_jsonable()) + "\n")
    return path
