"""Does ``rubricjudge refine`` help? Agreement on a test split, original rubric vs refined.

Run: ``python benchmarks/refine_rubric.py --judge local [--ricechem DIR] [--question 4]
[--train 40] [--test 30] [--llm-rubric-dev 0] [--llm-rubric-test 0]``.

* RiceChem (real student answers, teaching assistants' labels; read from
  ``../shared/data/ricechem``, never copied): ``refine`` sees only the first ``--train``
  answers of autorubric's train split of question ``--question`` (it splits them again
  into propose and held-out parts itself); the original and the refined rubric are then
  both judged on the first ``--test`` answers of the test split, which ``refine`` never saw.
* LLM-Rubric (``example:llm_rubric_microsoft``, bundled): refined on dev dialogues,
  reported on test dialogues (the hash split of ``_realdata.llm_rubric_split``). Off by
  default: each dialogue is long for the local judge.

Prints, per criterion, the test split's agreement with the labels with the original and
the refined rubric side by side, and what ``refine`` kept. ``--judge`` takes any judge
spec (``local``, ``openai/<model>`` with ``--base-url``, ``fake`` for the mechanics).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _realdata import autorubric_split, llm_rubric_split, ricechem_dir  # noqa: E402

from rubricjudge import CriterionGrader, RubricDataset  # noqa: E402
from rubricjudge._authoring._refine import refine_rubric  # noqa: E402
from rubricjudge._model._scoring import leaf_reports  # noqa: E402
from rubricjudge.judges import get_judge  # noqa: E402


def _subset(data: Any, indices: list[int]) -> Any:
    out = RubricDataset(prompt=data.prompt, rubric=data.rubric, name=data.name)
    out.reference_submission = data.reference_submission
    for i in indices:
        it = data.items[i]
        out.add_item(
            it.submission,
            ground_truth=it.ground_truth,
            id=it.id or f"items[{i}]",
            query=it.query,
            reference_submission=it.reference_submission,
            metadata=it.metadata,
        )
    return out


def _text(cr: Any) -> str | None:
    if cr.error is not None:
        return None  # a failure is no verdict: left out, and counted
    if cr.selection is not None:
        return str(cr.selection.label)
    if cr.scale_score is not None:
        return f"{cr.scale_score.score:g}"
    return str(cr.verdict.value) if cr.verdict is not None else None


async def _agreement(grader: Any, rubric: Any, data: Any) -> tuple[list[tuple[int, int]], int]:
    """Per leaf: (agreeing, labelled and judged) on ``data``; and the judge failures."""
    leaves = len(rubric.leaves())
    counts = [[0, 0] for _ in range(leaves)]
    failures = 0
    for i, item in enumerate(data.items):
        report = await grader.grade(
            rubric,
            item.submission,
            query=data.get_item_query(i),
            reference_submission=data.get_item_reference_submission(i),
            item_id=item.id,
        )
        for k, (cr, truth) in enumerate(
            zip(leaf_reports(report.report or []), item.ground_truth or [], strict=False)
        ):
            if truth is None:
                continue
            said = _text(cr)
            if said is None:
                failures += 1
                continue
            label = truth.value if hasattr(truth, "value") else str(truth)
            counts[k][1] += 1
            counts[k][0] += said == label
    return [(a, n) for a, n in counts], failures


def _rate(a: int, n: int) -> str:
    return f"{a}/{n} = {a / n:.3f}" if n else "-"


async def _run(name: str, train: Any, test: Any, args: argparse.Namespace) -> None:
    judge = get_judge(args.judge, **({"base_url": args.base_url} if args.base_url else {}))
    t0 = time.monotonic()
    result = await refine_rubric(
        train.rubric,
        train,
        judge,
        seed=args.seed,
        max_criteria=args.max_criteria,
        candidates=args.candidates,
        examples=args.examples,
        concurrency=1,
        log=lambda line: print(f"  [{name}] {line}", file=sys.stderr),
    )
    t1 = time.monotonic()
    grader = CriterionGrader(judge, reasons=False)
    before, fail0 = await _agreement(grader, result.original, test)
    after, fail1 = await _agreement(grader, result.rubric, test)
    t2 = time.monotonic()
    print(
        f"\n{name}: refine on {len(train.items)} train items "
        f"({len(result.propose_ids)} propose, {len(result.heldout_ids)} held out), "
        f"report on {len(test.items)} test items; judge {result.judge}; "
        f"refine {t1 - t0:.0f} s, test {t2 - t1:.0f} s"
    )
    print(f"{'criterion':28} {'held-out before':>16} {'after':>7}  {'test original':>18}  "
          f"{'test refined':>18}  change")  # fmt: skip
    for r, (a0, n0), (a1, n1) in zip(result.criteria, before, after, strict=True):
        held = f"{r.before:.3f}" if r.before is not None else "-"
        held_after = f"{r.after:.3f}" if r.after is not None else "-"
        change = r.change.kind if r.change else ("no gain" if r.candidates else "-")
        print(f"{r.name[:28]:28} {held:>16} {held_after:>7}  {_rate(a0, n0):>18}  "
              f"{_rate(a1, n1):>18}  {change}")  # fmt: skip
    tot0 = sum(a for a, _ in before), sum(n for _, n in before)
    tot1 = sum(a for a, _ in after), sum(n for _, n in after)
    print(f"{'all criteria':28} {'':>16} {'':>7}  {_rate(*tot0):>18}  {_rate(*tot1):>18}")
    if fail0 or fail1:
        print(f"judge failures left out: {fail0} original, {fail1} refined")
    for r in result.criteria:
        for c in r.candidates:
            text = c.criterion.requirement if c.kind != "examples" else "(examples added)"
            agree = f"{c.agreement:.3f}" if c.agreement is not None else "-"
            print(f"candidate {r.name} {c.kind}: {text[:90]!r} held-out {agree} "
                  f"(+{c.c} -{c.b}, p={c.p_value:.3g})")  # fmt: skip
        for d in r.dropped:
            print(f"proposal {r.name} not tested: {d}")
    for line in result.changelog:
        print(f"kept: {line}")
    if not result.changed:
        print(f"kept nothing: no candidate passed the {result.test} ({result.tests} tested)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--judge", default="local", help="judge spec (default: local)")
    ap.add_argument("--base-url", help="OpenAI-compatible server for an openai/ judge")
    ap.add_argument("--ricechem", help="folder with RiceChem's q1.json .. q4.json")
    ap.add_argument("--question", type=int, default=4, help="RiceChem question (0: skip)")
    ap.add_argument("--train", type=int, default=40, help="train answers refine sees")
    ap.add_argument("--test", type=int, default=30, help="test answers reported on")
    ap.add_argument("--llm-rubric-dev", type=int, default=0, help="LLM-Rubric dev dialogues")
    ap.add_argument("--llm-rubric-test", type=int, default=0, help="LLM-Rubric test dialogues")
    ap.add_argument("--max-criteria", type=int, default=3)
    ap.add_argument("--candidates", type=int, default=2)
    ap.add_argument("--examples", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    if args.question:
        data = RubricDataset.from_file(ricechem_dir(args.ricechem) / f"q{args.question}.json")
        split = autorubric_split(len(data.items))
        train = _subset(data, split["train"][: args.train])
        test = _subset(data, split["test"][: args.test])
        asyncio.run(_run(f"RiceChem q{args.question}", train, test, args))
    if args.llm_rubric_dev and args.llm_rubric_test:
        from rubricjudge._datasets._bundled import load_example_dataset

        data = load_example_dataset("llm_rubric_microsoft")
        dev = [i for i, it in enumerate(data.items) if llm_rubric_split(str(it.id)) == "dev"]
        tst = [i for i, it in enumerate(data.items) if llm_rubric_split(str(it.id)) == "test"]
        train = _subset(data, dev[: args.llm_rubric_dev])
        test = _subset(data, tst[: args.llm_rubric_test])
        asyncio.run(_run("LLM-Rubric", train, test, args))


if __name__ == "__main__":
    main()
