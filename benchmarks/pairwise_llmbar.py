"""Pairwise grading on LLMBar's expert-labelled answer pairs with the local judge.

Run: ``python benchmarks/pairwise_llmbar.py [--per-file N] [--seed S] [-o FILE]``, then
``python benchmarks/pairwise_llmbar.py --summary [-o FILE]`` to print the table again.

LLMBar (Zeng et al., ICLR 2024; MIT; read from ``../shared/data/llmbar`` or ``--data``)
holds 419 pairs of answers to one instruction, with the one that follows it better
verified by experts. Every pair is compared with ``PairwiseGrader`` against
``benchmarks/data/llmbar_rubric.yaml``, per criterion and holistically, each comparison
in both orders. One pass gives every rule compared:

* **without the swap**: the first order alone (``output_1`` shown first), as a
  grader that asks once would decide;
* **with the swap**: both orders, a disagreement a tie (what ``PairwiseGrader`` does);
* **swap-averaged probabilities**: each order's answer probabilities averaged over
  the two orders, the preference following P(a) - P(b) (a way to read a judge whose
  answers follow the position but whose probabilities still lean the right way).

Accuracy counts a tie half. The local model takes tens of seconds per pair on a shared
2-core machine, so by default a seeded sample of ``--per-file`` pairs from each of the
five files is compared holistically, and the first ``--per-criterion-pairs`` of them (the
files taking turns) per criterion too, which costs about four times as much (the whole
set in both modes would take about 6 hours); results go to ``-o`` line by line and a
rerun continues where it stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(HERE / ".cache"))

from rubricjudge import Rubric  # noqa: E402
from rubricjudge._graders._pairwise import PairwiseGrader  # noqa: E402
from rubricjudge._judges._registry import get_judge  # noqa: E402
from rubricjudge._model._pairwise import PairwiseReport  # noqa: E402
from rubricjudge._stats._pairwise_stats import PairwiseTally, credit  # noqa: E402

FILES = (
    "LLMBar_Natural",
    "LLMBar_Adversarial_Neighbor",
    "LLMBar_Adversarial_GPTInst",
    "LLMBar_Adversarial_GPTOut",
    "LLMBar_Adversarial_Manual",
)
MODES = ("per-criterion", "holistic")
DEFAULT_DATA = HERE.parent.parent / "shared" / "data" / "llmbar"
DEFAULT_OUT = HERE / ".cache" / "pairwise_llmbar.jsonl"


def sample(data: Path, per_file: int | None, seed: int) -> list[dict[str, Any]]:
    """The pairs measured: a seeded sample of ``per_file`` from each file (None: all).

    The files take turns, so a run stopped early still covers each of them alike.
    """
    per: list[list[dict[str, Any]]] = []
    for name in FILES:
        rows = json.loads((data / f"{name}.json").read_text(encoding="utf-8"))
        picks = list(range(len(rows)))
        if per_file is not None and per_file < len(rows):
            picks = sorted(random.Random(f"{seed}:{name}").sample(picks, per_file))
        per.append(
            [
                {**rows[i], "id": f"{name}:{i}", "file": name}
                | {"label": "a" if rows[i]["label"] == 1 else "b"}
                for i in picks
            ]
        )
    out = []
    for k in range(max(len(p) for p in per)):
        out += [p[k] for p in per if k < len(p)]
    return out


async def compare_pair(
    graders: dict[str, PairwiseGrader], rubric: Rubric, pair: dict[str, Any]
) -> dict[str, Any]:
    """Compare one pair in the given modes, order by order so the KV cache carries over."""
    first = next(iter(graders.values()))
    member = first.members()[0]
    prefixes = first._prefixes(rubric, *_subs(pair), pair["input"], None)
    asked: dict[str, list[Any]] = {m: [] for m in graders}
    start = time.perf_counter()
    for side, prefix in prefixes:  # a first: every mode; then b first
        for mode, g in graders.items():
            for i, (key, _, _, c) in enumerate(g.compared(rubric)):
                tags = {"criterion": i, "key": key, "item": pair["id"], "first": side}
                req, _ = g.request(rubric, prefix, c, member, 0, tags)
                asked[mode].append(await g._ask(member, req))
    wall = time.perf_counter() - start
    row: dict[str, Any] = {"id": pair["id"], "file": pair["file"], "label": pair["label"]}
    row["wall_s"] = wall
    for mode, g in graders.items():
        items = g.compared(rubric)
        report = g._report(rubric, items, [member], asked[mode], pair["id"], pair["label"])
        seconds = sum(float(a.outcome.info.get("latency_s", 0.0)) for a in asked[mode])
        row[mode] = {"report": report.to_jsonable(), "judge_s": seconds}
    return row


def _subs(pair: dict[str, Any]) -> tuple[Any, Any]:
    from rubricjudge._graders._inputs import to_submission

    return to_submission(pair["output_1"]), to_submission(pair["output_2"])


def averaged(report: PairwiseReport) -> str | None:
    """The swap-averaged-probabilities preference (None without probabilities)."""
    total = value = 0.0
    for c in report.criteria:
        probs = [o.probabilities for o in c.orders]
        if len(probs) != 2 or any(p is None for p in probs):
            return None
        pa = sum((p or {}).get("a", 0.0) for p in probs) / 2
        pb = sum((p or {}).get("b", 0.0) for p in probs) / 2
        w = abs(c.weight) or 1.0
        total += w
        value += w * (pa - pb)
    if total == 0:
        return None
    return "a" if value > 0 else "b" if value < 0 else "tie"


def summarize(rows: list[dict[str, Any]]) -> str:
    """The table: per mode and per file, every rule's accuracy, consistency, time."""
    lines = [
        f"{'mode':14} {'subset':28} {'pairs':>5} {'no swap':>8} {'swap':>6} {'excl.ties':>9} "
        f"{'averaged':>8} {'consist.':>8} {'1st shown':>9} {'s/pair':>7}"
    ]
    groups = [("all", rows)] + [(f, [r for r in rows if r["file"] == f]) for f in FILES]
    for mode in MODES:
        for name, group in groups:
            group = [r for r in group if mode in r]
            if not group:
                continue
            reports = [PairwiseReport.model_validate(r[mode]["report"]) for r in group]
            st = PairwiseTally().add_all(reports).stats()
            avg = [averaged(rep) for rep in reports]
            scored = [
                credit(a, rep.label) for a, rep in zip(avg, reports, strict=True) if a and rep.label
            ]  # type: ignore[arg-type]
            avg_acc = sum(scored) / len(scored) if scored else None
            secs = sum(r[mode]["judge_s"] for r in group) / len(group)

            def pct(v: float | None) -> str:
                return "–" if v is None else f"{v:.1%}"

            lines.append(
                f"{mode:14} {name.removeprefix('LLMBar_'):28} {len(group):5d} "
                f"{pct(st.accuracy_first_order):>8} {pct(st.accuracy):>6} "
                f"{pct(st.agreement_excluding_ties):>9} {pct(avg_acc):>8} "
                f"{pct(st.consistency_rate):>8} {pct(st.first_shown_share):>9} {secs:7.1f}"
            )
    wall = sum(r["wall_s"] for r in rows)
    lines.append(f"{len(rows)} pairs, {wall / 60:.1f} minutes of wall time in all")
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
    pairs = sample(Path(args.data), None if args.all else args.per_file, args.seed)
    rubric = Rubric.from_file(HERE / "data" / "llmbar_rubric.yaml")
    judge = get_judge("local")
    graders = {m: PairwiseGrader(judge=judge, mode=m) for m in MODES}
    # per criterion costs about four times as much as holistic: measured on fewer pairs
    per_criterion = {p["id"] for p in pairs[: args.per_criterion_pairs]}
    out.parent.mkdir(parents=True, exist_ok=True)
    todo = [p for p in pairs if p["id"] not in done]
    print(f"{len(pairs)} pairs, {len(todo)} to compare", file=sys.stderr, flush=True)
    with out.open("a", encoding="utf-8") as f:
        for n, pair in enumerate(todo, 1):
            modes = MODES if pair["id"] in per_criterion else ("holistic",)
            row = await compare_pair({m: graders[m] for m in modes}, rubric, pair)
            f.write(json.dumps(row) + "\n")
            f.flush()
            done[row["id"]] = row
            print(f"{n}/{len(todo)} {pair['id']} {row['wall_s']:.1f}s", file=sys.stderr, flush=True)
    print(summarize([done[p["id"]] for p in pairs if p["id"] in done]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="the llmbar directory")
    ap.add_argument("--per-file", type=int, default=20, help="pairs sampled from each file")
    ap.add_argument("--all", action="store_true", help="every pair (about 6 hours)")
    ap.add_argument(
        "--per-criterion-pairs",
        type=int,
        default=25,
        metavar="N",
        help="compare per criterion only the first N pairs of the sample (default 25)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output", default=str(DEFAULT_OUT))
    ap.add_argument("--summary", action="store_true", help="print the table of -o and stop")
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()
