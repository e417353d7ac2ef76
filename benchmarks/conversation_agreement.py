"""The LLM-Rubric dialogues graded as text and as conversations, against the human answers.

Run: ``python benchmarks/conversation_agreement.py [--items 12] [--judge local]``.

Both bundled forms of microsoft/LLM-Rubric's dialogues (``llm_rubric_microsoft``: each
dialogue as text; ``llm_rubric_microsoft_chat``: the same as a conversation) are graded
by the same judge on the same items (the first ``--items`` of the test split used by
``judge_agreement.py``: item ids whose SHA-256 starts with an odd byte), with the
grader's defaults and ``over_budget="elide"`` (a dialogue past the local judge's budget
keeps its first and last turns). It prints, per form, the exact agreement with the
human's option on the eight rated questions (Q8, whose labels have no documented
meaning, left out), the prompt tokens per judgment, the seconds per judgment and how
many dialogues were elided.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time
from pathlib import Path

os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(Path(__file__).resolve().parent / ".cache"))

from rubricjudge import CriterionGrader, load_example_dataset  # noqa: E402

FORMS = {"text": "llm_rubric_microsoft", "conversation": "llm_rubric_microsoft_chat"}


def test_split(item_id: str) -> bool:
    """The split ``judge_agreement.py`` puts the LLM-Rubric item in (by its id's hash)."""
    return hashlib.sha256(item_id.encode()).digest()[0] % 2 == 1


def main() -> None:
    """Grade both forms and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=12)
    parser.add_argument("--judge", default="local")
    args = parser.parse_args()
    grader = CriterionGrader(args.judge, over_budget="elide")
    print(f"judge {args.judge}, {args.items} test-split dialogues, questions Q0..Q7")
    print("form          agreement   judgments  prompt tokens/judgment  s/judgment  elided")
    for form, name in FORMS.items():
        ds = load_example_dataset(name)
        rubric = ds.rubric
        assert rubric is not None
        keys = [c.key for c in rubric.leaves()]
        items = [it for it in ds.items if it.id and test_split(it.id)][: args.items]
        right = total = tokens = calls = elided = 0
        start = time.perf_counter()
        for it in items:
            report = grader.grade_sync(rubric, it.submission, query=it.query, item_id=it.id)
            elided += bool(report.metadata.get("conversation", {}).get("elided_turns"))
            calls += report.judge_calls
            tokens += report.token_usage.prompt_tokens if report.token_usage else 0
            for key, cr, gold in zip(keys, report.report or [], it.ground_truth or [], strict=True):
                if key == "Q8" or gold is None:
                    continue
                total += 1
                said = cr.selection.label if cr.selection is not None and cr.error is None else None
                right += said == gold
        spent = time.perf_counter() - start
        print(
            f"{form:<13} {right}/{total} ({100 * right / max(1, total):.1f}%)  {calls:>9}  "
            f"{tokens / max(1, calls):>22,.0f}  {spent / max(1, calls):>10.2f}  {elided:>6}"
        )


if __name__ == "__main__":
    main()
