"""Verdicts of the local judge on the bundled example: 5 answers x 4 criteria.

Run: ``python benchmarks/local_verdicts.py [--grader per-criterion|one-shot]``.
Grades ``examples/answers.jsonl`` against ``examples/native/answer_quality.yaml``
with the ``local`` judge (response cache off, one item at a time) and compares each
verdict with the label a careful reader gives. Labels marked ``?`` are debatable
and only shown; the accuracy counts the others.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rubricjudge import Rubric
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._graders._oneshot import PerCriterionOneShotGrader

ROOT = Path(__file__).resolve().parent.parent

# item -> criterion -> expected label ("?" prefix: debatable, not counted)
EXPECTED: dict[str, dict[str, str]] = {
    "rayleigh": {"correct": "MET", "supported": "MET", "clarity": "Clear", "fabrication": "UNMET"},
    "short": {"correct": "MET", "supported": "?MET", "clarity": "Clear", "fabrication": "UNMET"},
    "ocean": {"correct": "UNMET", "supported": "?MET", "clarity": "?Clear", "fabrication": "?MET"},
    "thinking": {"correct": "MET", "supported": "MET", "clarity": "Clear", "fabrication": "UNMET"},
    "off-topic": {
        "correct": "UNMET",
        "supported": "UNMET",
        "clarity": "?Confusing",
        "fabrication": "UNMET",
    },
}


def label(report: dict[str, object]) -> str:
    if report.get("error"):
        return f"error: {report['error']}"
    sel = report.get("selection")
    if isinstance(sel, dict):
        return str(sel["label"])
    return str(report.get("verdict"))


def main() -> None:
    """Grade the example and print verdicts against the expected labels."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--grader", choices=["per-criterion", "one-shot"], default="per-criterion")
    ap.add_argument("--reasons", action="store_true", help="print each judge's reason too")
    args = ap.parse_args()
    rubric = Rubric.from_file(ROOT / "examples" / "native" / "answer_quality.yaml")
    cls = PerCriterionOneShotGrader if args.grader == "one-shot" else CriterionGrader
    grader = cls("local", judge_options={"cache": False})
    lines = (ROOT / "examples" / "answers.jsonl").read_text(encoding="utf-8").splitlines()
    right = counted = 0
    start = time.perf_counter()
    for line in filter(None, map(str.strip, lines)):
        item = json.loads(line)
        report = grader.grade_sync(
            rubric, item["submission"], query=item.get("query"), item_id=item["id"]
        ).model_dump(mode="json")
        cells = []
        for crit in report["report"]:
            name = crit["criterion"]["name"]
            got = label(crit)
            want = EXPECTED[item["id"]][name]
            mark = "?" if want.startswith("?") else ("ok" if got == want else "WRONG")
            if not want.startswith("?"):
                counted += 1
                right += got == want
            cells.append(f"{name}={got}({mark})")
            if args.reasons:
                print(f"    {item['id']}/{name}: {got}: {crit.get('reason', '')}")
        score = report.get("score")
        shown = f"{score:.2f}" if isinstance(score, float) else score
        print(f"{item['id']:<10} score {shown}  " + "  ".join(cells))
    elapsed = time.perf_counter() - start
    print(f"agreement with clear labels: {right}/{counted}; {elapsed:.0f} s in all")


if __name__ == "__main__":
    main()
