"""Real, human-labelled data for the agreement benchmark, and the local judge's view of it.

* RiceChem (Sonkar et al., AIED 2024; autorubric's conversion): 1,240 real student
  answers to four chemistry questions, 27 binary criteria labelled by teaching
  assistants. Its redistribution terms are unclear, so it is read from
  ``../shared/data/ricechem`` (or ``--ricechem DIR`` / ``$RICECHEM_DIR``) and never
  copied into this repository. Split 80/10/10 per question with seed 42 exactly as
  autorubric's ``examples/ricechem_demo.py`` does (``split_train_test(stratify=False)``
  twice), which is the protocol of the paper's and autorubric's published figures.
* LLM-Rubric (microsoft/LLM-Rubric, MIT, bundled as ``example:llm_rubric_microsoft``):
  223 real IT-help dialogues, nine multi-choice questions, one human judge's answers;
  split dev/test by a hash of the dialogue id (as before).

The judge's view of one (answer, criterion) is what the library's own grader asks
and gets: the local judge in ``verdict-only``, its probabilities over the answers and
its hidden state where it decides (``JudgeResponse.features``), no calibration, no
evidence check, no reasons. They are kept in ``benchmarks/.cache/<name>.npz`` so
every protocol reuses one pass over the data.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import os
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = HERE / ".cache"
DEFAULT_RICECHEM = ROOT.parent / "shared" / "data" / "ricechem"


@dataclass(frozen=True)
class Judged:
    """The local judge's answer about one labelled (answer, criterion)."""

    source: str  # "q1".."q4" or "llm_rubric"
    item: int  # index of the answer in its file
    crit: int  # index of the criterion in its rubric
    criterion: Any  # the library's Criterion
    truth: str  # the human label: MET / UNMET, or an option label
    probabilities: dict[str, float]  # MET/UNMET or option labels, as the grader reads them
    features: bytes | None
    seconds: float  # the judge's time for this criterion (0.0 when unknown)


def ricechem_dir(given: str | None) -> Path:
    """Where RiceChem's ``q1.json`` .. ``q4.json`` are: ``given``, ``$RICECHEM_DIR``, default."""
    path = Path(given or os.environ.get("RICECHEM_DIR") or DEFAULT_RICECHEM)
    if not (path / "q1.json").is_file():
        sys.exit(
            f"RiceChem not found at {path}: give --ricechem DIR (the folder with q1.json .. "
            "q4.json, autorubric's conversion; it is not redistributed with rubricjudge)"
        )
    return path


def autorubric_split(n: int, seed: int = 42) -> dict[str, list[int]]:
    """autorubric's RiceChem split of ``n`` answers: train 80%, val 10%, test the rest.

    ``split_train_test(stratify=False, seed=42)`` twice, as its ricechem demo does
    (the test share is ``1 - (0.8 + 0.1)``, floored, like theirs).
    """
    n_test = max(1, math.floor(n * (1 - (0.80 + 0.10))))
    order = list(range(n))
    random.Random(seed).shuffle(order)
    remaining, test = order[: n - n_test], order[n - n_test :]
    n_train = max(1, math.floor(n * 0.80))
    again = list(range(len(remaining)))
    random.Random(seed).shuffle(again)
    train = [remaining[i] for i in again[:n_train]]
    val = [remaining[i] for i in again[n_train:]]
    return {"train": train, "val": val, "test": test}


def llm_rubric_split(item_id: str) -> str:
    """``dev`` or ``test`` for a dialogue, by a hash of its id."""
    return "dev" if hashlib.sha256(item_id.encode()).digest()[0] % 2 == 0 else "test"


def _unpadded(features: np.ndarray, has: np.ndarray) -> list[int]:
    """Each row's length in a cache written before it kept lengths (rows were padded).

    Rows of one width need no trimming; a row whose features name their blocks
    (``_features.HEADER``) is its header and that many blocks, each as wide as the
    blocks of the row that names the most.
    """
    from rubricjudge._features import HEADER

    full = features.shape[1] if features.ndim == 2 else 0
    heads: list[tuple[int, int] | None] = []
    block = 0
    for k in range(len(features)):
        row = bytes(features[k][:200]) if has[k] else b""
        if not row.startswith(HEADER):
            heads.append(None)
            continue
        head = row.index(b"\n") + 1
        n = row[len(HEADER) : head - 1].count(b",") + 1
        heads.append((head, n))
        if full - head > 0 and (full - head) % n == 0:
            block = max(block, (full - head) // n)
    return [full if h is None or not block else h[0] + h[1] * block for h in heads]


class FeatureCache:
    """What the judge said about each (answer, criterion), on disk between runs."""

    def __init__(self, name: str) -> None:
        self.path = CACHE / f"{name}.npz"
        self.rows: dict[tuple[int, int], dict[str, Any]] = {}
        if self.path.exists():
            with np.load(self.path, allow_pickle=False) as npz:
                z = {k: npz[k] for k in npz.files}  # each npz[k] reads its whole array again
            lengths = z.get("feature_bytes")
            if lengths is None:  # written before lengths were kept: rows are zero-padded
                lengths = _unpadded(z["features"], z["has_features"])
            for k in range(len(z["item"])):
                probs = {
                    str(label): float(p)
                    for label, p in zip(z["labels"][k], z["probs"][k], strict=True)
                    if label
                }
                self.rows[(int(z["item"][k]), int(z["crit"][k]))] = {
                    "probabilities": probs,
                    "features": (
                        bytes(z["features"][k][: lengths[k]]) if z["has_features"][k] else None
                    ),
                    "seconds": float(z["seconds"][k]),
                }

    def has(self, item: int, n_criteria: int) -> bool:
        return all((item, c) in self.rows for c in range(n_criteria))

    def put(
        self, item: int, crit: int, probs: dict[str, float], features: bytes | None, seconds: float
    ) -> None:
        self.rows[(item, crit)] = {"probabilities": probs, "features": features, "seconds": seconds}

    def save(self) -> None:
        CACHE.mkdir(parents=True, exist_ok=True)
        keys = sorted(self.rows)
        width = max((len(r["probabilities"]) for r in self.rows.values()), default=1)
        dim = max((len(r["features"] or b"") for r in self.rows.values()), default=0)
        labels = np.full((len(keys), width), "", dtype="<U16")
        probs = np.zeros((len(keys), width))
        feats = np.zeros((len(keys), dim), dtype=np.uint8)
        has = np.zeros(len(keys), dtype=bool)
        lengths = np.zeros(len(keys), dtype=np.int64)
        for k, key in enumerate(keys):
            row = self.rows[key]
            for j, (label, p) in enumerate(row["probabilities"].items()):
                labels[k, j], probs[k, j] = label, p
            if row["features"] is not None:
                feats[k, : len(row["features"])] = np.frombuffer(row["features"], np.uint8)
                has[k] = True
                lengths[k] = len(row["features"])
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(
            tmp,
            item=np.array([k[0] for k in keys]),
            crit=np.array([k[1] for k in keys]),
            labels=labels,
            probs=probs,
            features=feats,
            has_features=has,
            feature_bytes=lengths,
            seconds=np.array([self.rows[k]["seconds"] for k in keys]),
        )
        os.replace(tmp, self.path)


def _grader() -> Any:
    from rubricjudge import CriterionGrader

    grader = CriterionGrader(
        "local",
        verdict_method="verdict-only",
        calibration=None,
        evidence="off",
        reasons=False,
        # every block the judge can read: probe_layers.py compares them (docs/trust.md)
        judge_options={"cache": False, "extra_params": {"hidden_blocks": "all"}},
    )
    grader.features = True
    return grader


def judge_dataset(name: str, dataset: Any, indices: Sequence[int], *, label: str) -> list[Judged]:
    """The judge's answers on ``dataset.items[indices]``, computed where not cached."""
    cache = FeatureCache(name)
    rubric = dataset.rubric
    n_crit = len(rubric.rubric)
    todo = [i for i in indices if not cache.has(i, n_crit)]
    if todo:
        grader = _grader()
        began = time.perf_counter()
        for done, i in enumerate(todo, 1):
            item = dataset.items[i]
            start = time.perf_counter()
            report = asyncio.run(
                grader.grade(rubric, item.submission, query=dataset.get_item_query(i))
            )
            spent = (time.perf_counter() - start) / n_crit
            for c, cr in enumerate(report.report or []):
                if cr.error is not None or cr.probabilities is None:
                    sys.exit(f"{name} item {i} criterion {c}: the judge failed: {cr.error}")
                cache.put(i, c, dict(cr.probabilities), cr.features, spent)
            if done % 5 == 0 or done == len(todo):
                cache.save()
                rate = (time.perf_counter() - began) / done
                print(
                    f"  {label}: judged {done}/{len(todo)} answers, "
                    f"about {rate * (len(todo) - done) / 60:.0f} min to go",
                    file=sys.stderr,
                )
    out = []
    for i in indices:
        item = dataset.items[i]
        for c, criterion in enumerate(rubric.rubric):
            row = cache.rows[(i, c)]
            truth = item.ground_truth[c]
            out.append(
                Judged(
                    source=label,
                    item=i,
                    crit=c,
                    criterion=criterion,
                    truth=truth.value if hasattr(truth, "value") else str(truth),
                    probabilities=row["probabilities"],
                    features=row["features"],
                    seconds=row["seconds"],
                )
            )
    return out
