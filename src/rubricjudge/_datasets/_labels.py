"""Who labelled what: each labeller's latest label per criterion, kept in an item's metadata.

``rubricjudge label`` writes the label that counts into ``ground_truth`` (the last
one given, whoever gave it) and every labeller's own latest label here, so two
people's labels on one item can be compared (``metrics`` reports their agreement)::

    metadata:
      human_labels:
        correct:                       # the criterion's name (its id, if it has one)
          ana: {label: MET, at: "2025-05-01T09:30:12.123456Z"}
          ben: {label: UNMET, at: "2025-05-01T10:02:40.000001Z"}

Labels are stored as ``ground_truth`` stores them (MET, UNMET, CANNOT_ASSESS or the
option's own label); ``at`` is UTC in ISO 8601.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import DatasetError
from .._model._rubric import Criterion, Rubric

__all__ = [
    "LABELLER_PATTERN",
    "LABELS_KEY",
    "LabelRecord",
    "leaf_names",
    "read_records",
]

LABELS_KEY = "human_labels"
LABELLER_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+\-]{0,63}$")
"""A labeller's name: letters, digits and ``_ . @ + -``, at most 64 characters."""


@dataclass(frozen=True)
class LabelRecord:
    """One labeller's latest label on one criterion of one item, and when it was given."""

    label: str
    at: str

    def to_data(self) -> dict[str, str]:
        """The record as it is written in the dataset file."""
        return {"label": self.label, "at": self.at}


def leaf_names(rubric: Rubric) -> list[str]:
    """The name each leaf criterion goes by in labels: its id or name, else ``criterion_<i>``."""
    return [_name(c, i) for i, c in enumerate(rubric.leaves())]


def _name(c: Criterion, i: int) -> str:
    return c.key if c.key is not None else f"criterion_{i}"


def read_records(metadata: Mapping[str, Any], where: str) -> dict[str, dict[str, LabelRecord]]:
    """The records under ``metadata["human_labels"]``: criterion -> labeller -> record.

    Raises:
        DatasetError: the records are not shaped as above; the message names ``where``.
    """
    raw = metadata.get(LABELS_KEY)
    if raw is None:
        return {}
    path = f"{where}.metadata.{LABELS_KEY}"
    fix = (
        "it is written by `rubricjudge label` as {criterion: {labeller: {label: ..., "
        "at: ...}}}; fix it or remove the key"
    )
    if not isinstance(raw, Mapping):
        raise DatasetError(f"{path}: expected a mapping, got {type(raw).__name__}; {fix}")
    out: dict[str, dict[str, LabelRecord]] = {}
    for criterion, by_labeller in raw.items():
        if not isinstance(by_labeller, Mapping):
            raise DatasetError(f"{path}.{criterion}: expected a mapping of labellers; {fix}")
        got: dict[str, LabelRecord] = {}
        for labeller, rec in by_labeller.items():
            at = f"{path}.{criterion}.{labeller}"
            if not isinstance(rec, Mapping) or set(rec) != {"label", "at"}:
                raise DatasetError(f"{at}: expected {{label: ..., at: ...}}; {fix}")
            label, when = rec["label"], rec["at"]
            if not isinstance(label, str) or not isinstance(when, str):
                raise DatasetError(f"{at}: label and at must be strings; {fix}")
            got[str(labeller)] = LabelRecord(label, when)
        out[str(criterion)] = got
    return out
