"""Agent trajectories: reading, rendering, the budget, and exact checks against τ-bench's reward.

Run: ``python benchmarks/trajectories.py [--source gpt-4o-airline.json]``.

The data are τ-bench's published trajectories (sierra-research/tau-bench, MIT,
``historical_trajectories/gpt-4o-airline.json`` at commit
59a200c6d575d595120f1cb70fea53cef0632f6b: 200 conversations of a GPT-4o agent, 50
airline tasks x 4 trials, each with τ-bench's reward and the task's expected actions).
Without ``--source`` the six bundled in ``examples/tau_bench`` are used.

It measures:

1. reading the OpenAI messages into conversations and rendering them for a prompt
   (messages per second), and the same trajectories in Anthropic's form;
2. the rendered size against the budgets: how many fit the local judge's 2,496 tokens
   and the others' 32,000, and what eliding to 2,496 keeps;
3. grading every trajectory with exact criteria only (no judge call) built from its
   task's expected actions: one ``called_with`` criterion per action (its arguments as
   the JSON subset), and how often "every expected call was made" agrees with
   τ-bench's reward (the reward also checks the final database and the answers the
   user was told, so the two can differ either way).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from rubricjudge import Criterion, CriterionGrader, FakeJudge, Rubric
from rubricjudge.conversations import read_messages, render_for_prompt

ROOT = Path(__file__).resolve().parent.parent
EXCERPT = ROOT / "examples" / "tau_bench" / "trajectories.jsonl"
LOCAL_BUDGET = 2_496
REMOTE_BUDGET = 32_000


def load(source: Path | None) -> list[dict[str, Any]]:
    """Records with ``id``, ``messages``, ``reward`` and ``actions``."""
    if source is None:
        rows = [json.loads(line) for line in EXCERPT.read_text(encoding="utf-8").splitlines()]
        return [
            {
                "id": r["id"],
                "messages": r["messages"],
                "reward": r["metadata"]["reward"],
                "actions": r["metadata"]["expected_actions"],
            }
            for r in rows
        ]
    data = json.loads(source.read_text(encoding="utf-8"))
    return [
        {
            "id": f"task{r['task_id']}-trial{r['trial']}",
            "messages": r["traj"],
            "reward": r["reward"],
            "actions": r["info"]["task"]["actions"],
        }
        for r in data
    ]


READS = ("get_", "search_", "list_", "calculate", "think")


def task_rubric(actions: list[dict[str, Any]], *, writes_only: bool) -> Rubric | None:
    """One exact criterion per expected action: that call, with those arguments.

    ``writes_only`` leaves out the look-ups (``get_``, ``search_``, ...): τ-bench's
    reward compares the database, which they do not change.
    """
    if writes_only:
        actions = [a for a in actions if not a["name"].startswith(READS)]
    criteria = [
        Criterion(
            name=f"a{k}_{a['name']}",
            requirement=f"calls {a['name']} with the expected arguments",
            weight=1.0,
            scoring_method={
                "type": "trajectory",
                "trajectory": {"check": "called_with", "tool": a["name"], "arguments": a["kwargs"]},
            },
        )
        for k, a in enumerate(actions)
    ]
    return Rubric(criteria) if criteria else None


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, help="τ-bench's gpt-4o-airline.json")
    args = parser.parse_args()
    records = load(args.source)
    n_messages = sum(len(r["messages"]) for r in records)
    print(f"{len(records)} trajectories, {n_messages} messages")

    t = time.perf_counter()
    convs = [read_messages(r["messages"]) for r in records]
    read_s = time.perf_counter() - t
    t = time.perf_counter()
    rendered = [render_for_prompt(c) for c in convs]
    render_s = time.perf_counter() - t
    print(
        f"read: {n_messages / read_s:,.0f} messages/s; render: {n_messages / render_s:,.0f} "
        f"messages/s ({1000 * render_s / len(convs):.2f} ms per trajectory)"
    )
    anthropic = [c.to_anthropic() for c in convs]
    same = sum(
        read_messages(a["messages"], system=a.get("system")) == c
        for a, c in zip(anthropic, convs, strict=True)
    )
    same_text = sum(
        render_for_prompt(read_messages(a["messages"], system=a.get("system"))).text == r.text
        for a, r in zip(anthropic, rendered, strict=True)
    )
    print(f"Anthropic form: {same}/{len(convs)} read back equal, {same_text} render identically")

    tokens = sorted(r.tokens for r in rendered)
    print(
        f"rendered tokens: min {tokens[0]:,}, median {statistics.median(tokens):,.0f}, "
        f"max {tokens[-1]:,}; within {LOCAL_BUDGET:,}: {sum(x <= LOCAL_BUDGET for x in tokens)}, "
        f"within {REMOTE_BUDGET:,}: {sum(x <= REMOTE_BUDGET for x in tokens)}"
    )
    t = time.perf_counter()
    elided = [render_for_prompt(c, budget=LOCAL_BUDGET, over_budget="elide") for c in convs]
    elide_s = time.perf_counter() - t
    cut = [e for e in elided if e.cut]
    if cut:
        print(
            f"elided to {LOCAL_BUDGET:,}: {len(cut)} trajectories cut, median "
            f"{statistics.median(e.elided for e in cut):.0f} of "
            f"{statistics.median(e.messages for e in cut):.0f} messages elided, "
            f"largest kept {max(e.tokens for e in elided):,} tokens, "
            f"{1000 * elide_s / len(convs):.2f} ms per trajectory"
        )

    grader = CriterionGrader(judge=FakeJudge(), evidence="off")
    for writes_only in (False, True):
        agreement(records, convs, grader, writes_only=writes_only)


def agreement(
    records: list[dict[str, Any]], convs: list[Any], grader: Any, *, writes_only: bool
) -> None:
    """Print how often "every expected call was made" agrees with τ-bench's reward."""
    agree = calls_only = reward_only = 0
    times = []
    for r, conv in zip(records, convs, strict=True):
        rubric = task_rubric(r["actions"], writes_only=writes_only)
        predicted = True  # nothing was expected to be called
        if rubric is not None:
            t = time.perf_counter()
            report = grader.grade_sync(rubric, conv)
            times.append(time.perf_counter() - t)
            assert report.judge_calls == 0
            predicted = all(
                cr.verdict is not None and cr.verdict.value == "MET" for cr in report.report or []
            )
        passed = r["reward"] >= 1.0
        agree += predicted == passed
        calls_only += predicted and not passed
        reward_only += passed and not predicted
    which = "expected write actions" if writes_only else "expected actions"
    ms = 1000 * statistics.mean(times) if times else 0.0
    print(
        f"exact checks of the {which}: {ms:.2f} ms per trajectory, no judge call; "
        f"agree with the reward on {agree}/{len(records)} ({100 * agree / len(records):.1f}%); "
        f"every expected call made but reward 0: {calls_only}; reward 1 without them: "
        f"{reward_only}"
    )


if __name__ == "__main__":
    main()
