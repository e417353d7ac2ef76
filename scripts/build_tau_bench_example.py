"""Build the τ-bench excerpt in ``examples/tau_bench`` from τ-bench's published trajectories.

Source: sierra-research/tau-bench (MIT), ``historical_trajectories/gpt-4o-airline.json``
at commit 59a200c6d575d595120f1cb70fea53cef0632f6b: 200 airline-support conversations
of a GPT-4o tool-calling agent with a simulated user (50 tasks, 4 trials each), in
OpenAI's chat format, each with τ-bench's reward (1.0 when the database ended as the
task required) and the task's expected actions.

The excerpt keeps six whole trajectories (``PICKS``), as ``grade`` input lines:
``{"id", "messages", "metadata": {task_id, trial, reward, expected_actions}}``.

Usage::

    python scripts/build_tau_bench_example.py --source PATH/gpt-4o-airline.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "examples" / "tau_bench" / "trajectories.jsonl"
# (task id, trial): two successes and four failures of different kinds
PICKS = [(0, 0), (1, 0), (4, 1), (8, 2), (38, 2), (48, 1)]


def line(record: dict[str, object]) -> dict[str, object]:
    """One grade input line for a τ-bench trajectory record."""
    info = record["info"]
    assert isinstance(info, dict)
    return {
        "id": f"task{record['task_id']}-trial{record['trial']}",
        "messages": record["traj"],
        "metadata": {
            "task_id": record["task_id"],
            "trial": record["trial"],
            "reward": record["reward"],
            "expected_actions": info["task"]["actions"],
        },
    }


def main() -> None:
    """Write the excerpt."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True, help="gpt-4o-airline.json")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    records = json.loads(args.source.read_text(encoding="utf-8"))
    by_key = {(r["task_id"], r["trial"]): r for r in records}
    with args.out.open("w", encoding="utf-8") as f:
        for key in PICKS:
            f.write(json.dumps(line(by_key[key]), ensure_ascii=False) + "\n")
    print(f"wrote {args.out} ({len(PICKS)} trajectories, {args.out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
