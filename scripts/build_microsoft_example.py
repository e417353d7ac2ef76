"""Build the bundled ``llm_rubric_microsoft`` example dataset.

Source: microsoft/LLM-Rubric (MIT), as copied to ``shared/data/llm_rubric_microsoft``:
223 real IT-help dialogues, each rated by one human on nine questions.

* each dialogue becomes a submission: its retrieved sources (title, URL and the
  first ``--excerpt`` characters of each page) followed by the turns as text; with
  ``--form conversation`` it stays a conversation (``messages``): a system message
  holding the sources, then the user's and the assistant's turns as they were;
* the nine questions become multi-choice criteria: Q1..Q7 and Q0 ordinal with
  options "1".."4" worth 0, 1/3, 2/3, 1, plus an N/A option where the question
  allows it; Q8 nominal with options "1", "2", "3" (weight 0: what its labels mean
  is not documented, see the README next to the output);
* the human answers are the ground truth, 0 becoming the N/A option.

Usage::

    python scripts/build_microsoft_example.py [--source DIR] [--out FILE] [--excerpt N]
        [--form text|conversation]
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
from pathlib import Path
from typing import Any

from rubricjudge import Criterion, CriterionOption, Rubric
from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge.conversations import Conversation, read_messages

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = Path("/work/shared/data/llm_rubric_microsoft")
DEFAULT_OUT = ROOT / "src" / "rubricjudge" / "data" / "llm_rubric_microsoft.jsonl"
CHAT_OUT = ROOT / "src" / "rubricjudge" / "data" / "llm_rubric_microsoft_chat.jsonl"
UPSTREAM = "https://github.com/microsoft/LLM-Rubric"
COMMIT = "70d56fc4e9a26e60642bc14b62b96d2d0a500edd"
NA = "N/A"
# Q8's labels have no documented meaning; it is kept as a criterion a judge answers but
# carries no weight, so the dataset's scores do not rest on a guess.
WEIGHTS = {"Q8": 0.0}
PROMPT = (
    "A user asks an AI assistant for help with an IT question. Some assistants searched the web "
    "and may cite the sources they found. Judge the whole dialogue."
)
GUIDELINES = (
    "Answer every question about the dialogue as a whole. Ratings 1 to 4 run from worst to best. "
    "Choose N/A only when the question does not apply, for example a question about references "
    "or citations when the assistant was given no sources."
)
SOURCE_RE = re.compile(
    r"\[(\d+)\]: URL: (.*?) --- Title: (.*?) --- Body: (.*?)(?=\n\[\d+\]: URL: |\Z)", re.S
)


def build_rubric(questions: list[dict[str, Any]]) -> Rubric:
    """One multi-choice criterion per question, in the TSV's column order."""
    criteria = []
    for q in questions:
        scale = [str(v) for v in q["scale"]]
        top = len(scale) - 1
        nominal = bool(q.get("nominal"))
        options = [
            CriterionOption(
                label=label,
                value=(1.0 if label == "3" else 0.0) if nominal else k / top,
                description=None if nominal else _level(k, top),
            )
            for k, label in enumerate(scale)
        ]
        if q["na_allowed"]:
            options.append(CriterionOption(label=NA, na=True, description="does not apply"))
        criteria.append(
            Criterion(
                id=q["id"],
                name=q["name"],
                requirement=q["question"],
                weight=WEIGHTS.get(q["id"], 1.0),
                options=options,
                scale_type="nominal" if nominal else "ordinal",
            )
        )
    return Rubric(
        criteria,
        id="llm_rubric_microsoft",
        name="LLM-Rubric dialogue questions",
        description=(
            "Nine questions on IT-help dialogues from LLM-Rubric (Hashemi et al., ACL 2024)."
        ),
        guidelines=GUIDELINES,
    )


def _level(k: int, top: int) -> str | None:
    return "worst" if k == 0 else "best" if k == top else None


def render_sources(dialogue: dict[str, Any], excerpt: int) -> str:
    """The retrieved sources as text (each page shortened), or a line saying there were none."""
    parts = []
    sources = SOURCE_RE.findall(dialogue.get("ref") or "")
    if sources:
        parts.append(f"Sources given to the assistant (each page cut to {excerpt} characters):")
        for number, url, title, body in sources:
            body = " ".join(body.split())
            cut = body if len(body) <= excerpt else body[:excerpt].rstrip() + " [...]"
            parts.append(f"[{number}] {' '.join(title.split())}\n    {url.strip()}\n    {cut}")
    else:
        parts.append("Sources given to the assistant: none.")
    return "\n".join(parts)


def conversation(dialogue: dict[str, Any], excerpt: int) -> Conversation:
    """The dialogue as a conversation: the sources as a system message, then the turns."""
    messages = [{"role": "system", "content": render_sources(dialogue, excerpt)}]
    messages += [
        {"role": m["role"], "content": (m.get("content") or "").strip()}
        for m in dialogue["messages"]
    ]
    return read_messages(messages)


def render(dialogue: dict[str, Any], excerpt: int) -> str:
    """Render a dialogue as readable text: sources (shortened), then the turns."""
    parts = [render_sources(dialogue, excerpt)]
    parts.append("\nDialogue:")
    for m in dialogue["messages"]:
        who = "User" if m["role"] == "user" else "Assistant"
        parts.append(f"{who}: {(m.get('content') or '').strip()}")
    return "\n".join(parts)


def build(source: Path, excerpt: int, form: str = "text") -> RubricDataset:
    """Build the dataset; check each dialogue is labelled once and 0 only where N/A is allowed."""
    spec = json.loads((source / "rubric_questions.json").read_text(encoding="utf-8"))
    questions = spec["criteria"]
    rubric = build_rubric(questions)
    dialogues = json.loads((source / "real_data.json").read_text(encoding="utf-8"))
    with (source / "human_judges_real_convs_FIXED_ANON.tsv").open(encoding="utf-8") as f:
        rows = {r["text_id"]: r for r in csv.DictReader(f, delimiter="\t")}
    if len(rows) != len(dialogues) or set(rows) != {d["_id"] for d in dialogues}:
        raise SystemExit("the TSV and real_data.json do not cover the same dialogues")
    ds = RubricDataset(
        prompt=PROMPT,
        rubric=rubric,
        name="llm_rubric_microsoft" + ("_chat" if form == "conversation" else ""),
        metadata={
            "source": f"{UPSTREAM} at commit {COMMIT}",
            "license": "MIT (see llm_rubric_microsoft.LICENSE)",
            "citation": "Hashemi et al., LLM-Rubric, ACL 2024",
            "ground_truth": "one human judge per dialogue; 0 in the TSV is the N/A option",
        },
    )
    for d in dialogues:
        row = rows[d["_id"]]
        truth = {}
        for q in questions:
            raw = row[q["id"]].strip()
            if raw == "0" and not q["na_allowed"]:
                raise SystemExit(f"{d['_id']}: {q['id']} is 0 but N/A is not allowed there")
            truth[q["id"]] = NA if raw == "0" else raw
        system = int(row["dialogue_system"])
        ds.add_item(
            submission=conversation(d, excerpt) if form == "conversation" else render(d, excerpt),
            description=f"dialogue system {system} ({'with' if d.get('ref') else 'no'} retrieval), "
            f"annotator {row['annotator_id']}",
            ground_truth=truth,
            id=d["_id"],
            query=d.get("topic"),
            metadata={
                "dialogue_system": system,
                "annotator_id": int(row["annotator_id"]),
                "dialogue_version": d.get("dialogue_version"),
            },
        )
    assert all(isinstance(it, DataItem) for it in ds)
    return ds


def main() -> None:
    """Build the example and copy the licence next to it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--out", type=Path, help="default: the bundled file of --form")
    parser.add_argument("--excerpt", type=int, default=300, help="characters kept per source page")
    parser.add_argument("--form", choices=["text", "conversation"], default="text")
    args = parser.parse_args()
    out: Path = args.out or (CHAT_OUT if args.form == "conversation" else DEFAULT_OUT)
    ds = build(args.source, args.excerpt, args.form)
    out.parent.mkdir(parents=True, exist_ok=True)
    ds.to_file(out)
    shutil.copyfile(args.source / "LICENSE", out.with_suffix(".LICENSE"))
    size = out.stat().st_size
    print(f"wrote {out} ({len(ds)} items, {ds.num_criteria} criteria, {size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
