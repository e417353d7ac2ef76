"""Group ranking with the local judge: per-criterion scores with tie-breaks vs a listwise prompt.

Run: ``python benchmarks/group_ranking.py [--groups N] [--size K] [-o FILE]``, then
``python benchmarks/group_ranking.py --summary`` to print the table again.

Groups are drawn from RiceChem (Sonkar et al., AIED 2024; real student answers to four
chemistry questions graded by teaching assistants; read from ``../shared/data/ricechem``,
never copied here): for each question, ``--groups`` seeded groups of ``--size`` answers
whose human scores (the rubric's formula over the TAs' verdicts) all differ. Each group is
ranked by ``GroupRanker`` with the ``criteria`` method (per-criterion verdicts, equal
scores broken by a holistic pairwise comparison in both orders) and the ``listwise``
method (one prompt ranks the group, asked in the order given and reversed). The same
``criteria`` run without its tie-breaks is read from its scores.

Printed per method: pair accuracy (of the pairs in a group, the share the rewards order as
the human scores do, a tie counting half), mean Kendall tau, and seconds per group. The
response cache (``benchmarks/.cache``) makes a rerun cheap.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(HERE / ".cache"))

from rubricjudge import RubricDataset  # noqa: E402
from rubricjudge._model._group import rank_by  # noqa: E402
from rubricjudge.graders import GroupRanker  # noqa: E402
from rubricjudge.judges import get_judge  # noqa: E402

DEFAULT_DATA = HERE.parent.parent / "shared" / "data" / "ricechem"
DEFAULT_OUT = HERE / ".cache" / "group_ranking.jsonl"
QUESTIONS = ("q1", "q2", "q3", "q4")


def groups_of(data: Path, per_question: int, size: int, seed: int) -> list[dict[str, Any]]:
    """Seeded groups of ``size`` answers with distinct human scores, per question.

    The questions take turns, so a run stopped early still covers each of them alike.
    """
    per: list[list[dict[str, Any]]] = []
    for q in QUESTIONS:
        out: list[dict[str, Any]] = []
        per.append(out)
        ds = RubricDataset.from_file(data / f"{q}.json")
        rubric = ds.get_item_rubric(0)
        scored = [
            (i, rubric.compute_score(it.ground_truth))
            for i, it in enumerate(ds.items)
            if it.ground_truth is not None
        ]
        rng = random.Random(f"{seed}:{q}")
        made = 0
        for _ in range(10_000):
            if made == per_question:
                break
            pick = rng.sample(scored, size)
            golds = [round(s or 0.0, 6) for _, s in pick]
            if len(set(golds)) < size:
                continue
            out.append(
                {
                    "id": f"{q}:{made}",
                    "question": q,
                    "items": [i for i, _ in pick],
                    "gold": golds,
                }
            )
            made += 1
    return [p[k] for k in range(per_question) for p in per if k < len(p)]


def pair_accuracy(rewards: list[float | None], gold: list[float]) -> float | None:
    """Share of pairs ordered as the human scores are (a predicted tie counts half)."""
    right = total = 0.0
    for i, j in itertools.combinations(range(len(gold)), 2):
        ri, rj = rewards[i], rewards[j]
        if ri is None or rj is None:
            continue
        total += 1
        if ri == rj:
            right += 0.5
        elif (ri > rj) == (gold[i] > gold[j]):
            right += 1
    return right / total if total else None


def kendall_tau(rewards: list[float | None], gold: list[float]) -> float | None:
    """Kendall's tau-b between the rewards and the human scores (placed answers only)."""
    conc = disc = tie_x = tie_y = 0
    for i, j in itertools.combinations(range(len(gold)), 2):
        ri, rj = rewards[i], rewards[j]
        if ri is None or rj is None:
            continue
        dx, dy = ri - rj, gold[i] - gold[j]
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            tie_x += 1
        elif dy == 0:
            tie_y += 1
        elif (dx > 0) == (dy > 0):
            conc += 1
        else:
            disc += 1
    denom = ((conc + disc + tie_x) * (conc + disc + tie_y)) ** 0.5
    return (conc - disc) / denom if denom else None


async def rank_group(
    rankers: dict[str, GroupRanker], data: Path, group: dict[str, Any], cache: dict[str, Any]
) -> dict[str, Any]:
    """Rank one group with every method; time each."""
    q = group["question"]
    if q not in cache:
        cache[q] = RubricDataset.from_file(data / f"{q}.json")
    ds = cache[q]
    rubric = ds.get_item_rubric(group["items"][0])
    subs = [ds.items[i].submission for i in group["items"]]
    query = getattr(ds.items[group["items"][0]], "query", None) or ds.prompt
    row: dict[str, Any] = {k: group[k] for k in ("id", "question", "items", "gold")}
    for name, ranker in rankers.items():
        start = time.perf_counter()
        report = await ranker.rank(rubric, subs, query=query, item_id=group["id"])
        seconds = time.perf_counter() - start
        row[name] = {
            "rewards": report.rewards,
            "scores": report.scores,
            "calls": report.judge_calls,
            "seconds": seconds,
            "error": report.error,
        }
        if name == "criteria":  # the same verdicts, no tie-breaks
            keys = [s for s in report.scores or []]
            row["criteria, no tie-breaks"] = {
                "rewards": rank_by(keys)[0],
                "calls": report.judge_calls - 2 * len(report.tie_breaks or []),
                "seconds": None,
            }
    return row


def summarize(rows: list[dict[str, Any]]) -> str:
    """The table: pair accuracy, Kendall tau, calls and seconds per group, per method."""
    lines = [f"{'method':24} {'groups':>6} {'pair acc.':>9} {'tau':>6} {'calls':>6} {'s/group':>8}"]
    for name in ("criteria", "criteria, no tie-breaks", "listwise"):
        got = [r for r in rows if name in r]
        if not got:
            continue
        accs = [pair_accuracy(r[name]["rewards"], r["gold"]) for r in got]
        taus = [kendall_tau(r[name]["rewards"], r["gold"]) for r in got]
        accs_k = [a for a in accs if a is not None]
        taus_k = [t for t in taus if t is not None]
        secs = [r[name]["seconds"] for r in got if r[name]["seconds"] is not None]
        acc = f"{sum(accs_k) / len(accs_k):.1%}" if accs_k else "–"
        tau = f"{sum(taus_k) / len(taus_k):.2f}" if taus_k else "–"
        calls = sum(r[name]["calls"] for r in got) / len(got)
        sec = f"{sum(secs) / len(secs):8.1f}" if secs else f"{'–':>8}"
        lines.append(f"{name:24} {len(got):6d} {acc:>9} {tau:>6} {calls:6.1f} {sec}")
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> None:
    out = Path(args.output)
    done: dict[str, dict[str, Any]] = {}
    if out.is_file():
        for line in out.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                done[row["id"]] = row
    if args.summary:
        print(summarize(list(done.values())))
        return
    data = Path(args.data)
    groups = groups_of(data, args.groups, args.size, args.seed)
    judge = get_judge("local")
    rankers = {
        "criteria": GroupRanker(judge, method="criteria"),
        "listwise": GroupRanker(judge, method="listwise"),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    todo = [g for g in groups if g["id"] not in done]
    print(f"{len(groups)} groups, {len(todo)} to rank", file=sys.stderr, flush=True)
    cache: dict[str, Any] = {}
    with out.open("a", encoding="utf-8") as f:
        for n, group in enumerate(todo, 1):
            row = await rank_group(rankers, data, group, cache)
            f.write(json.dumps(row) + "\n")
            f.flush()
            done[row["id"]] = row
            print(f"{n}/{len(todo)} {group['id']}", file=sys.stderr, flush=True)
    print(summarize([done[g["id"]] for g in groups if g["id"] in done]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="the ricechem directory")
    ap.add_argument("--groups", type=int, default=5, help="groups per question (default 5)")
    ap.add_argument("--size", type=int, default=4, help="answers per group (default 4)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output", default=str(DEFAULT_OUT))
    ap.add_argument("--summary", action="store_true", help="print the table of -o and stop")
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()
