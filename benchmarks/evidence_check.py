"""How the penalty evidence check treats true penalties with loose quotes and invented ones.

Two measurements, both of the quote rule in ``rubricjudge._graders._evidence``:

1. ``collect``: the local judge grades the penalty criteria of labelled datasets with
   ``evidence="penalties", evidence_policy="record"``: every penalty it calls present
   is quoted and the quote kept with the human label, so the rule can be scored on the
   judge's own quotes (true penalty: the human says the fault is there). Writes JSON
   Lines to ``--out`` (default ``evidence_quotes.jsonl`` in the current directory).
2. ``score``: the rule on collected quotes (``--quotes FILE``, any number) and on
   ``benchmarks/data/evidence_quotes.jsonl``: quotes written by the developers for the
   demo answers and a few of their own, each marked ``exact`` (copied), ``loose`` (what
   the submission says, paraphrased as a small judge does), ``invented`` (words the
   submission does not say, or says negated) or ``short`` (one common word). Prints,
   per group, how many quotes the rule finds.

Run (from the repository root)::

    python benchmarks/evidence_check.py collect --data demo authored_mixed pilot_physics \\
        authored_science --absent 20 --out /tmp/quotes.jsonl
    python benchmarks/evidence_check.py score --quotes /tmp/quotes.jsonl

``EVIDENCE_SRC=DIR`` imports rubricjudge from ``DIR`` instead of ``src``: a copy with an
older ``_evidence.py`` gives the "before" figures.

``collect`` costs one judge call per penalty and item (about 1.5 s each with the local
judge on 2 cores) plus one per penalty called present; ``--absent N`` keeps only N items
per dataset whose penalty the humans say is absent (all items whose penalty is there are
kept). Numbers are in docs/trust.md (evidence checks).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, os.environ.get("EVIDENCE_SRC", str(ROOT / "src")))

from rubricjudge import Rubric, RubricDataset  # noqa: E402
from rubricjudge._graders._criterion import CriterionGrader  # noqa: E402
from rubricjudge._graders._evidence import check_quote  # noqa: E402
from rubricjudge._model._rubric import CriterionVerdict  # noqa: E402

SYNTHETIC = ROOT / "benchmarks/data/evidence_quotes.jsonl"


def _demo() -> RubricDataset:
    from rubricjudge._formats._load import load_rubrics

    rubric = load_rubrics(ROOT / "examples/native/why_sky_blue.yaml")[0]
    items = []
    for line in (ROOT / "examples/answers.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        sub = row["submission"]
        text = sub["output"] if isinstance(sub, dict) else sub
        items.append({"id": row["id"], "query": row["query"], "submission": text})
    from rubricjudge._datasets._dataset import DataItem

    # the demo has no labels: only the "ocean" answer claims the sky reflects the ocean
    return RubricDataset(
        prompt="Why is the sky blue?",
        rubric=rubric,
        items=[
            DataItem(
                submission=i["submission"],
                id=i["id"],
                query=i["query"],
                ground_truth=["UNMET", "UNMET", "Confusing"]
                + ["MET" if i["id"] == "ocean" else "UNMET"],
            )
            for i in items
        ],
    )


def _load(name: str) -> RubricDataset:
    if name == "demo":
        return _demo()
    return RubricDataset.from_file(ROOT / "benchmarks/data" / f"{name}.json")


def _penalties(ds: RubricDataset, item: Any) -> list[tuple[int, Any, str]]:
    rubric = item.rubric or ds.rubric
    out = []
    for i, c in enumerate(rubric.criteria):
        if c.weight < 0 and not c.is_multi_choice:
            gt = item.ground_truth
            label = gt[c.name] if isinstance(gt, dict) else gt[i]
            out.append((i, c, str(getattr(label, "value", label))))
    return out


async def collect(names: list[str], absent: int, out: Path, seed: int) -> None:
    grader = CriterionGrader("local", evidence="penalties", evidence_policy="record")
    rows: list[dict[str, Any]] = []
    calls = 0
    sink = out.open("w", encoding="utf-8")  # row by row: a long run stopped keeps its rows
    started = time.perf_counter()
    for name in names:
        ds = _load(name)
        present, missing = [], []
        for item in ds.items:
            for _, c, label in _penalties(ds, item):
                (present if label == "MET" else missing).append((item, c, label))
        random.Random(seed).shuffle(missing)
        chosen = present + missing[:absent] if name != "demo" else present + missing
        for item, c, label in chosen:
            report = await grader.grade(
                Rubric([c]), item.submission, query=item.query or ds.prompt, item_id=item.id
            )
            calls += 1
            r = (report.report or [None])[0]
            check = r.evidence_check if r is not None else None
            rows.append(
                {
                    "data": name,
                    "id": item.id,
                    "criterion": c.requirement,
                    "human": label,
                    "judge": check.raw_verdict.value
                    if check and check.raw_verdict
                    else (r.verdict.value if r is not None and r.verdict else "ERROR"),
                    "quote": check.quote if check else None,
                    "submission": item.submission,
                }
            )
            sink.write(json.dumps(rows[-1], ensure_ascii=False) + "\n")
            sink.flush()
            print(
                f"{name} {item.id}: human {label}, judge {rows[-1]['judge']}, "
                f"quote {rows[-1]['quote']!r}",
                file=sys.stderr,
            )
    sink.close()
    took = time.perf_counter() - started
    print(f"{calls} penalties judged in {took:.0f} s; wrote {out}", file=sys.stderr)


def _found(quote: str | None, submission: str) -> bool:
    _, check = check_quote(quote, submission, policy="record", verdict=CriterionVerdict.MET)
    return check.found


def score(quote_files: list[Path]) -> None:
    print("Synthetic quotes (benchmarks/data/evidence_quotes.jsonl): found / quotes")
    groups: dict[str, list[bool]] = collections.defaultdict(list)
    for line in SYNTHETIC.read_text("utf-8").splitlines():
        row = json.loads(line)
        groups[row["kind"]].append(_found(row["quote"], row["submission"]))
    for kind in ("exact", "loose", "invented", "short"):
        got = groups.get(kind, [])
        print(f"  {kind:9s} {sum(got):3d} / {len(got):3d}")
    for path in quote_files:
        rows = [json.loads(x) for x in path.read_text("utf-8").splitlines()]
        said = [r for r in rows if r["judge"] == "MET"]
        true = [r for r in said if r["human"] == "MET"]
        false = [r for r in said if r["human"] != "MET"]
        kept_true = sum(_found(r["quote"], r["submission"]) for r in true)
        kept_false = sum(_found(r["quote"], r["submission"]) for r in false)
        humans = sum(r["human"] == "MET" for r in rows)
        print(
            f"\nThe local judge's quotes ({path.name}): {len(rows)} penalties judged, "
            f"{humans} present by the humans, {len(said)} called present by the judge"
        )
        print(f"  true penalties kept by the check:  {kept_true} / {len(true)}")
        print(f"  false penalties kept by the check: {kept_false} / {len(false)}")
        agree_before = sum((r["judge"] == "MET") == (r["human"] == "MET") for r in rows)
        agree_after = sum(
            ((r["judge"] == "MET") and _found(r["quote"], r["submission"])) == (r["human"] == "MET")
            for r in rows
        )
        print(
            f"  agreement with the humans: judge alone {agree_before}/{len(rows)}, "
            f"after the check {agree_after}/{len(rows)}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--data", nargs="+", default=["demo", "authored_mixed", "pilot_physics"])
    c.add_argument("--absent", type=int, default=20)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--out", type=Path, default=Path("evidence_quotes.jsonl"))
    s = sub.add_parser("score")
    s.add_argument("--quotes", type=Path, nargs="*", default=[])
    args = ap.parse_args()
    if args.command == "collect":
        asyncio.run(collect(args.data, args.absent, args.out, args.seed))
    else:
        score(args.quotes)


if __name__ == "__main__":
    main()
