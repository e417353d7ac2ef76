"""How far labelling has come: items this labeller finished, labels a calibration still needs.

The calibration figure follows ``rubricjudge calibrate`` exactly: it fits a group of
criteria (every positive binary criterion, every penalty, multi-choice criteria of
one kind) once the group has ``MIN_POOLED`` labels with at least ``MIN_PER_LABEL``
of each of two answers, and needs one group. The count is of labels (one answer of
one criterion), the fewest that could get there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._calibration._groups import group_ids
from .._calibration._train import MIN_PER_LABEL, MIN_POOLED, labels_needed
from .._datasets._labels import LABELS_KEY, leaf_names, read_records
from .._model._rubric import Criterion, CriterionVerdict
from ._file import DatasetFile

__all__ = ["Progress", "progress"]


def _describe(gid: str) -> str:
    if gid == "pooled:positive":
        return "criteria with a positive weight"
    if gid == "pooled:negative":
        return "penalties"
    if gid.startswith("pooled:"):
        return "multi-choice criteria of one kind"
    return "one criterion"


@dataclass(frozen=True)
class Progress:
    """Items finished by this labeller, and the calibration's need."""

    labelled: int
    total: int
    needed: int
    group: str
    counts: dict[str, int]
    short: tuple[tuple[str, int], ...] = ()
    """The other pooled groups still short of labels: (what they cover, labels needed).
    ``calibrate`` skips them, so the page names them beside "enough"."""

    def to_data(self) -> dict[str, Any]:
        """As the API sends it."""
        return {
            "labelled": self.labelled,
            "total": self.total,
            "calibration": {
                "needed": self.needed,
                "group": self.group,
                "about": _describe(self.group),
                "counts": self.counts,
                "min_labels": MIN_POOLED,
                "min_each": MIN_PER_LABEL,
                "short": [{"about": about, "needed": n} for about, n in self.short],
            },
        }


def done_by(file: DatasetFile, labeller: str) -> set[int]:
    """Indexes of the items ``labeller`` has labelled on every criterion."""
    done = set()
    names_of: dict[int, list[str]] = {}  # per rubric object: most items share one
    for i, item in file.items():
        if not item.metadata or LABELS_KEY not in item.metadata:
            continue
        records = read_records(item.metadata, f"items[{i}]")
        rubric = file.dataset.get_item_rubric(i)
        names = names_of.get(id(rubric))
        if names is None:
            names = names_of[id(rubric)] = leaf_names(rubric)
        if all(labeller in records.get(n, {}) for n in names):
            done.add(i)
    return done


def progress(file: DatasetFile, done: set[int]) -> Progress:
    """The progress over ``file`` when the items ``done`` are finished."""
    truths: dict[str, list[str]] = {}
    example: dict[str, Criterion] = {}
    groups_of: dict[int, list[tuple[Criterion, list[str]]]] = {}  # per rubric object
    for i, item in file.items():
        rubric = file.dataset.get_item_rubric(i)
        leaves = groups_of.get(id(rubric))
        if leaves is None:
            leaves = groups_of[id(rubric)] = [(c, group_ids(c)) for c in rubric.leaves()]
        values = list(item.ground_truth or [None] * len(leaves))
        for (criterion, gids), value in zip(leaves, values, strict=False):
            for gid in gids:
                example.setdefault(gid, criterion)
                bucket = truths.setdefault(gid, [])
                if value is not None:
                    bucket.append(value.value if isinstance(value, CriterionVerdict) else value)
    best: tuple[str, int, dict[str, int]] = ("", MIN_POOLED, {})
    needs: dict[str, int] = {}
    for gid, crit in example.items():
        need = needs[gid] = labels_needed(gid, crit, truths[gid])
        if need < best[1] or not best[0]:
            counts: dict[str, int] = {}
            for t in truths[gid]:
                counts[t] = counts.get(t, 0) + 1
            best = (gid, need, counts)
    short = tuple(
        (_describe(gid), need)
        for gid, need in sorted(needs.items())
        if gid in ("pooled:positive", "pooled:negative") and gid != best[0] and need > 0
    )
    return Progress(len(done), len(file.dataset.items), best[1], best[0], best[2], short)
