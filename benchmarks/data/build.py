"""Build the authored datasets of benchmarks/data from their sources (``_*_src.py``).

Run: ``python benchmarks/data/build.py``. Each question becomes one rubric: three
positive criteria (weight 1), a penalty (weight -1; optional in ``authored_science``)
and, in ``authored_science``, sometimes one multi-choice criterion; each answer an
item with the labels as ground truth. Questions alternate between the ``dev`` and
``test`` splits (``metadata.split``), so no question is in both.
``tests/test_benchmark_data.py`` rebuilds every file and checks it matches.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCES = {"pilot_physics": "_pilot_src", "authored_mixed": "_mixed_src"}
SCIENCE = ("_science_physics_src", "_science_other_src")
KINDS = ("explicit", "informal", "partial", "wrong", "offtopic")


def build(name: str, module: str) -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    src = importlib.import_module(module)
    items = []
    for qi, qd in enumerate(src.Q):
        crit = [
            {"name": f"c{i + 1}", "requirement": r, "weight": 1.0}
            for i, r in enumerate(qd["criteria"])
        ]
        crit.append({"name": "fault", "requirement": qd["penalty"], "weight": -1.0})
        rubric = {"format": "rubricjudge/1", "name": qd["id"], "criteria": crit}
        for ai, (text, labels) in enumerate(qd["answers"]):
            assert len(labels) == len(crit), (qd["id"], ai)
            items.append(
                {
                    "id": f"{qd['id']}-{ai + 1}",
                    "query": qd["question"],
                    "submission": text,
                    "rubric": rubric,
                    "ground_truth": labels,
                    "metadata": {"question": qd["id"], "split": "dev" if qi % 2 == 0 else "test"},
                }
            )
    return {"name": name, "prompt": "Answer the question.", "rubric": None, "items": items}


def _science_rubric(qd: dict[str, Any]) -> dict[str, Any]:
    crit: list[dict[str, Any]] = [
        {"name": f"c{i + 1}", "requirement": r, "weight": 1.0} for i, r in enumerate(qd["criteria"])
    ]
    if qd["penalty"]:
        crit.append({"name": "fault", "requirement": qd["penalty"], "weight": -1.0})
    if qd["choice"]:
        ch = qd["choice"]
        crit.append(
            {
                # one name per question: `rubricjudge metrics` pools criteria by name,
                # and each question's options differ
                "name": f"choice_{qd['id']}",
                "requirement": ch["requirement"],
                "weight": 1.0,
                "scale_type": ch["scale_type"],
                "options": [{"label": label, "value": value} for label, value in ch["options"]],
            }
        )
    return {"format": "rubricjudge/1", "name": qd["id"], "criteria": crit}


def build_science() -> dict[str, Any]:
    """authored_science.json: per question three criteria, maybe a penalty and a multi-choice one.

    Questions alternate between dev and test within each source module, so both
    splits get physics and other sciences alike.
    """
    sys.path.insert(0, str(HERE))
    extra = dict(importlib.import_module("_science_extra_src").EXTRA)
    items = []
    for module in SCIENCE:
        src = importlib.import_module(module)
        for qi, qd in enumerate(src.Q):
            qd = {**qd, "answers": [*qd["answers"], extra.pop(qd["id"])]}
            rubric = _science_rubric(qd)
            n_binary = 3 + (1 if qd["penalty"] else 0)
            options = {label for label, _ in qd["choice"]["options"]} if qd["choice"] else set()
            for ai, ans in enumerate(qd["answers"]):
                where = f"{module}: {qd['id']} answer {ai + 1}"
                assert len(ans["labels"]) == n_binary, where
                truth: list[str | None] = ["MET" if c == "M" else "UNMET" for c in ans["labels"]]
                if qd["choice"]:
                    assert ans["choice"] is None or ans["choice"] in options, where
                    truth.append(ans["choice"])
                else:
                    assert ans["choice"] is None, where
                items.append(
                    {
                        "id": f"{qd['id']}-{ai + 1}",
                        "query": qd["question"],
                        "submission": ans["text"],
                        "rubric": rubric,
                        "ground_truth": truth,
                        "metadata": {
                            "question": qd["id"],
                            "split": "dev" if qi % 2 == 0 else "test",
                            "kind": ans["kind"],
                            "source": "authored",
                        },
                    }
                )
    assert not extra, f"extra answers for unknown questions: {sorted(extra)}"
    ids = [it["id"] for it in items]
    assert len(ids) == len(set(ids)), "duplicate question ids"
    data = {
        "name": "authored_science",
        "prompt": "Answer the question.",
        "rubric": None,
        "metadata": {
            "source": "written and labelled by the rubricjudge developers",
            "licence": "MIT",
            "split": "metadata.split of each item: dev or test, by question",
        },
        "items": items,
    }
    return data


def _score(item: dict[str, Any]) -> float:
    """The rubric's score of the gold labels (every positive weight is 1, penalties -1)."""
    crit = item["rubric"]["criteria"]
    earned = 0.0
    for c, gold in zip(crit, item["ground_truth"], strict=True):
        if "options" in c:
            earned += next(o["value"] for o in c["options"] if o["label"] == gold) if gold else 0.0
        elif gold == "MET":
            earned += c["weight"]
    return max(0.0, earned) / sum(c["weight"] for c in crit if c["weight"] > 0)


def build_pairs(science: dict[str, Any]) -> list[dict[str, Any]]:
    """Preference pairs from authored_science: a correct answer against a worse one.

    Per question two pairs: the first ``informal`` answer (correct, in a student's
    words) against a ``partial`` answer that meets exactly one content criterion and
    commits no fault; and the ``explicit`` answer against the first ``wrong`` one (or
    the off-topic one). The better answer's gold score is 1, the worse one's at most
    a half, so the preference is unambiguous. Sides alternate so that ``a`` and
    ``b`` are each the better one half of the time.
    """
    by_question: dict[str, list[dict[str, Any]]] = {}
    for item in science["items"]:
        by_question.setdefault(item["metadata"]["question"], []).append(item)
    pairs = []
    for items in by_question.values():
        kind = {k: [it for it in items if it["metadata"]["kind"] == k] for k in KINDS}
        one_element = [
            it
            for it in kind["partial"]
            if sum(
                g == "MET"
                for c, g in zip(it["rubric"]["criteria"], it["ground_truth"], strict=True)
                if c["weight"] > 0 and "options" not in c
            )
            == 1
            and "MET"
            not in [
                g
                for c, g in zip(it["rubric"]["criteria"], it["ground_truth"], strict=True)
                if c["weight"] < 0
            ]
        ]
        worse_wrong = (kind["wrong"] or kind["offtopic"])[0]
        candidates = [(kind["informal"][0], one_element[0] if one_element else None)]
        candidates.append((kind["explicit"][0], worse_wrong))
        for good, bad in candidates:
            if bad is None:
                continue
            assert _score(good) == 1.0 and _score(bad) <= 0.5, (good["id"], bad["id"])
            better = "a" if len(pairs) % 2 == 0 else "b"
            a, b = (good, bad) if better == "a" else (bad, good)
            pairs.append(
                {
                    "id": f"{good['id']}>{bad['id']}",
                    "query": good["query"],
                    "rubric": good["rubric"],
                    "a": a["submission"],
                    "b": b["submission"],
                    "better": better,
                    "split": good["metadata"]["split"],
                    "question": good["metadata"]["question"],
                    "source": "authored_science",
                    "note": f"{good['metadata']['kind']} (score 1) vs {bad['metadata']['kind']} "
                    f"(score {_score(bad):.2f})",
                }
            )
    return pairs


def build_llmbar_pairs() -> list[dict[str, Any]]:
    """The LLMBar Natural pairs of ``_llmbar_src``, alternating between dev and test."""
    sys.path.insert(0, str(HERE))
    src = importlib.import_module("_llmbar_src")
    pairs = []
    for i, inst in enumerate(src.LLMBAR_NATURAL):
        pairs.append(
            {
                "id": f"llmbar_natural_{inst['index']}",
                "query": inst["input"],
                "rubric": src.RUBRIC,
                "a": inst["output_1"],
                "b": inst["output_2"],
                "better": "a" if inst["label"] == 1 else "b",
                "split": "dev" if i % 2 == 0 else "test",
                "question": f"llmbar_natural_{inst['index']}",
                "source": "LLMBar Natural (princeton-nlp/LLMBar, MIT)",
            }
        )
    return pairs


def build_all() -> dict[str, str]:
    """Every authored file as its exact text, by path under benchmarks/data."""
    datasets = [build(name, module) for name, module in SOURCES.items()]
    science = build_science()
    datasets.append(science)
    out = {
        f"{d['name']}.json": json.dumps(d, indent=1, ensure_ascii=False) + "\n" for d in datasets
    }
    out["pairs/authored_science_pairs.jsonl"] = "".join(
        json.dumps(p, ensure_ascii=False) + "\n" for p in build_pairs(science)
    )
    out["pairs/llmbar_natural_pairs.jsonl"] = "".join(
        json.dumps(p, ensure_ascii=False) + "\n" for p in build_llmbar_pairs()
    )
    return out


if __name__ == "__main__":
    for file_name, text in build_all().items():
        path = HERE / file_name
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(file_name, len(text.splitlines()) if path.suffix == ".jsonl" else "", "written")
