"""Agreement between people who labelled the same answers: the ceiling for a judge.

``rubricjudge label`` keeps each labeller's latest label per item and criterion in
the item's ``metadata.human_labels``. Where two or more people labelled the same
answer, their agreement says how well a judge could hope to agree with "the"
label: a judge that agrees with people about as often as they agree with each
other has reached the ceiling. Beside it, the judge's agreement with each of those
same people on those same answers, averaged over the people.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from ._agreement import krippendorff_alpha
from ._classification import accuracy, cohen_kappa
from ._coding import CriterionCoder, NaMode
from ._results import LabellerAgreement
from ._tables import contingency, ones_weights

__all__ = ["LabelledUnit", "labeller_agreement"]

POOLED = "pooled binary"


@dataclass
class LabelledUnit:
    """One answer (item x criterion) that people labelled, with the judge's coded answer."""

    index: int
    key: str
    coder: CriterionCoder
    judge: int
    labels: dict[str, str] = field(default_factory=dict)


def _pairs(x: list[int], y: list[int], k: int) -> tuple[int, float, float]:
    """Pairs both coded, their share that agree, and Cohen's kappa."""
    if not x:
        return 0, float("nan"), float("nan")
    tables = contingency(np.array(x), np.array(y), k, ones_weights(len(x)))
    n = int(tables[0].sum())
    return n, float(accuracy(tables)[0]), float(cohen_kappa(tables)[0])


def _mean(parts: list[tuple[int, float, float]], at: int) -> float:
    kept = [(n, p[at]) for p in parts if (n := p[0]) and not np.isnan(p[at])]
    total = sum(n for n, _ in kept)
    return sum(n * v for n, v in kept) / total if total else float("nan")


def _one(key: str, units: list[LabelledUnit], mode: NaMode) -> LabellerAgreement | None:
    coder = units[0].coder
    k = len(coder.labels) + (1 if mode == "category" else 0)
    coded: list[dict[str, int]] = []
    judge: list[int] = []
    for u in units:
        codes = {
            who: c
            for who, label in u.labels.items()
            if (c := u.coder.apply_mode(u.coder.code_value(label), mode, ordered=False)) >= 0
        }
        if len(codes) >= 2:
            coded.append(codes)
            judge.append(u.coder.apply_mode(u.judge, mode, ordered=False))
    if not coded:
        return None
    people = sorted({who for codes in coded for who in codes})
    between = []
    for a, b in itertools.combinations(people, 2):
        both = [c for c in coded if a in c and b in c]
        between.append(_pairs([c[a] for c in both], [c[b] for c in both], k))
    with_judge = []
    for who in people:
        rows = [(c[who], j) for c, j in zip(coded, judge, strict=True) if who in c and j >= 0]
        with_judge.append(_pairs([r[0] for r in rows], [r[1] for r in rows], k))
    matrix = np.full((len(people), len(coded)), np.nan)
    for col, codes in enumerate(coded):
        for who, c in codes.items():
            matrix[people.index(who), col] = c
    return LabellerAgreement(
        key=key,
        labellers=people,
        units=len(coded),
        agreement=_mean(between, 1),
        kappa=_mean(between, 2),
        krippendorff_alpha=krippendorff_alpha(matrix, "nominal"),
        judge_agreement=_mean(with_judge, 1),
        judge_kappa=_mean(with_judge, 2),
    )


def labeller_agreement(units: list[LabelledUnit], mode: NaMode) -> list[LabellerAgreement]:
    """Per criterion (and pooled over the binary ones), people against people and the judge.

    Answers with labels from fewer than two people are left out; N/A counts by ``mode``.
    """
    by_key: dict[str, list[LabelledUnit]] = {}
    for u in units:
        by_key.setdefault(u.key, []).append(u)
    out = [a for key, us in by_key.items() if (a := _one(key, us, mode)) is not None]
    binary = [u for u in units if u.coder.kind == "binary"]
    if len({u.key for u in binary}) > 1 and (pooled := _one(POOLED, binary, mode)) is not None:
        out.append(pooled)
    return out
