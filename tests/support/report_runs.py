"""Runs for the report tests, made through the real grader and run store with fake judges.

``trust_run`` fills every trust field a report can hold: token probabilities
(confidence), a calibration, evidence checks on the penalty, a cascade to a
second judge, judge failures, and human labels in the dataset. ``ensemble_run``
has three judges voting. Submission 0 is hostile HTML.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from rubricjudge import Criterion, JudgeError, Rubric, RubricDataset
from rubricjudge._calibration._groups import Calibration, CalibrationGroup
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._graders._ensemble import JudgeSpec
from rubricjudge._judges._base import JudgeRequest, JudgeResponse
from rubricjudge._judges._fake import FakeJudge, fake_reply_for_schema
from rubricjudge._runs._evaluate import evaluate_sync
from tests.support.helpers import sky_rubric

HOSTILE = "</script><img src=x onerror=\"document.title='pwned'\"><!-- <b>bold</b>"
PRICE = "price <i>$5</i>-$10"  # HTML for the page and mathtext for matplotlib: both text
FAILING = "answer number 13:"  # every judge fails on item-013


def rubric() -> Rubric:
    """Binary, penalty and multi-choice criteria; one name reads like HTML and mathtext."""
    price = Criterion(name=PRICE, weight=5, requirement="Quotes a price between $5 and $10")
    return sky_rubric(between=[price], pass_threshold=0.5)


def dataset(n: int, seed: int) -> RubricDataset:
    """``n`` items with human labels on most criteria."""
    rng = random.Random(seed)
    ds = RubricDataset(prompt="Why is the sky blue?", rubric=rubric())
    for i in range(n):
        text = (
            HOSTILE if i == 0 else f"answer number {i}: the air scatters blue light " * (1 + i % 3)
        )
        truth: list[Any] = [rng.choice(["MET", "UNMET"]) for _ in range(3)]
        truth.append(rng.choice(["poor", "fair", "great"]))
        if i % 7 == 0:
            truth[1] = None
        ds.add_item(submission=text, ground_truth=truth, id=f"item-{i:03d}")
    return ds


def judge(name: str, seed: int, *, fail_every: int = 0, fail_on: str = "") -> FakeJudge:
    """Answers every decision at random with token probabilities.

    It fails every ``fail_every``-th call, and every call whose prompt holds ``fail_on``.
    """
    rng = random.Random(seed)
    calls = [0]

    def reply(req: JudgeRequest) -> Any:
        calls[0] += 1
        if fail_every and calls[0] % fail_every == 0:
            return JudgeError("the judge timed out", category="timeout")
        if fail_on and fail_on in req.user:
            return JudgeError("the server said 503", category="server")
        if req.tags.get("evidence"):
            quote = "the air scatters" if rng.random() < 0.5 else "the ocean is a mirror"
            return {"quote": quote}
        data = fake_reply_for_schema(req.schema)
        probs: dict[str, float] | None = None
        if req.decision is not None:
            weights = [rng.random() for _ in req.decision.values]
            total = sum(weights)
            probs = {str(v): w / total for v, w in zip(req.decision.values, weights, strict=True)}
            data[req.decision.key] = max(req.decision.values, key=lambda v: probs[str(v)])
        if "reason" in data:
            data["reason"] = f"{name} read it as <b>{rng.random():.2f}</b>"
        return JudgeResponse(
            data=data,
            raw_text=json.dumps(data),
            cost=0.0001,
            latency_s=rng.uniform(0.05, 1.5),
            probabilities=probs,
            model=f"{name}-model",
        )

    return FakeJudge(default=reply, name=name)


def calibration(judge_name: str) -> Calibration:
    """Shifts every binary answer toward UNMET, so some verdicts change."""
    group = CalibrationGroup(
        id="pooled:positive", labels=["MET", "UNMET"], scale=1.0, bias=[-1.0, 1.0], n=50
    )
    return Calibration(judge=judge_name, verdict_method="verdict-only", groups=[group])


def trust_run(run_dir: Path, *, n: int = 30, seed: int = 1) -> Path:
    """A run with confidence, calibration, evidence checks, a cascade and failures."""
    grader = CriterionGrader(
        judge("cheap", seed, fail_every=23, fail_on=FAILING),
        verdict_method="verdict-only",
        calibration=calibration("cheap"),
        escalate_to=judge("strong", seed + 100, fail_every=5, fail_on=FAILING),
        below_confidence=0.7,
    )
    evaluate_sync(dataset(n, seed), grader, run_dir=run_dir)
    return run_dir


def ensemble_run(run_dir: Path, *, n: int = 30, seed: int = 2) -> Path:
    """Three judges vote on every criterion."""
    judges = [JudgeSpec(judge(f"j{k}", seed * 10 + k), id=f"j{k}") for k in range(3)]
    evaluate_sync(dataset(n, seed), CriterionGrader(judges=judges), run_dir=run_dir)
    return run_dir
