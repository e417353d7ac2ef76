"""Datasets: submissions to grade, with optional human ground truth.

The API follows autorubric's ``DataItem`` / ``RubricDataset`` (fields, ``add_item``,
per-item rubrics and references, ``compute_weighted_score``, JSON round trips,
``split_train_test``), extended with item ids, per-item queries, metadata, YAML and
JSONL files (see ``_io``), and ground truth given as a mapping.

Ground truth holds one value per *leaf* criterion, in leaf order (for a flat rubric,
one per criterion): a :class:`CriterionVerdict` for binary criteria, the option
label for multi-choice ones (CANNOT_ASSESS is allowed on both). Values are checked
against the item's rubric and stored normalised: ``True`` becomes MET, ``"good"``
becomes the option's own label ``"Good"``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Self

from .._conversations._conversation import Conversation
from .._conversations._messages import read_messages_with_media
from .._conversations._submission import Submission
from .._errors import ConversationError, DatasetError, VerdictError
from .._limits import without_surrogates
from .._model._reports import CriterionReport
from .._model._rubric import CriterionVerdict, Rubric
from .._model._scoring import CannotAssessStrategy
from .._model._verdicts import reports_from_verdicts
from ._split import stratified_split

__all__ = [
    "DataItem",
    "DatasetBase",
    "GroundTruth",
    "item_keys",
    "label_of",
    "normalize_ground_truth",
]

GroundTruth = list[CriterionVerdict | str | None]
"""One value per leaf criterion; None where that criterion has no human label."""


_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED = re.compile(r"\\u[dD][89a-fA-F]")  # a surrogate as repr writes it


def _whole_characters(item: DataItem) -> DataItem:
    """``item`` with a lone surrogate in its text fields replaced by U+FFFD.

    Files are read so already (``_limits``); an item built in Python may still hold
    one, which no UTF-8 run store, report or dataset copy could write. Checked fast
    first (a regex per text, ``repr`` of the metadata, which writes a surrogate as its
    escape): loading a dataset must not walk every item's data twice.
    """
    texts = (item.submission, item.description, item.reference_submission, item.id, item.query)
    if not any(isinstance(t, str) and not t.isascii() and _SURROGATE.search(t) for t in texts) and (
        not item.metadata or _ESCAPED.search(repr(item.metadata)) is None
    ):
        return item
    fields = {
        "submission": item.submission if isinstance(item.submission, str) else None,
        "description": item.description,
        "reference_submission": item.reference_submission,
        "id": item.id,
        "query": item.query,
        "metadata": item.metadata,
    }
    fixed, changed = without_surrogates(fields)
    if not changed:
        return item
    if fixed["submission"] is None:
        del fixed["submission"]
    return replace(item, **fixed)


def item_keys(items: Sequence[Any]) -> list[str]:
    """How runs, metrics and the label page name each item: its id, else ``#index``.

    An item's own id may be spelt like an unnamed item's name (the id ``"#1"`` beside
    an unnamed item at index 1): that unnamed item then gets one more ``#`` in front
    (``##1``, ``###1`` ...) until its name is free. So every name is unique (ids are
    unique, and unnamed items differ in their index), and a dataset without such an
    id names its items as it always did: runs and labels stored under those names
    still match.
    """
    ids = [getattr(item, "id", None) for item in items]
    own = {str(i) for i in ids if i not in (None, "")}
    out = []
    for index, ident in enumerate(ids):
        if ident not in (None, ""):
            out.append(str(ident))
            continue
        name = f"#{index}"
        while name in own:
            name = "#" + name
        out.append(name)
    return out


@dataclass
class DataItem:
    """One submission to grade, optionally with ground-truth verdicts.

    Attributes:
        submission: The text to grade (structured content as a JSON string), a
            :class:`~rubricjudge.conversations.Conversation` (``messages`` in files),
            or a :class:`Submission` with images or documents (content parts in files).
        description: A short note on the item ("good answer", "system B").
        ground_truth: One value per leaf criterion: a verdict or an option label.
        rubric: A rubric for this item only; the dataset's rubric otherwise.
        reference_submission: An exemplar answer; the dataset's reference otherwise.
        id: A stable identifier, unique within the dataset.
        query: The request this submission answers; the dataset's prompt otherwise.
        metadata: Free-form facts about the item (source, annotator, ...).
    """

    submission: str | Conversation | Submission
    description: str = ""
    ground_truth: GroundTruth | None = None
    rubric: Rubric | None = None
    reference_submission: str | Submission | None = None
    id: str | None = None
    query: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def normalize_ground_truth(
    rubric: Rubric, values: Sequence[Any] | Mapping[str, Any], *, where: str = "ground_truth"
) -> GroundTruth:
    """Check ground truth against ``rubric`` and return it as a list in leaf order.

    Accepts a list in leaf order or a mapping keyed by leaf name/id; values as
    ``Rubric.compute_score`` takes them (verdicts, option labels, true/false, 1/0).
    A value of None (null) means that criterion is not labelled on this item: it
    is kept as None and left out of agreement metrics, unlike CANNOT_ASSESS, which
    is a label.

    Raises:
        VerdictError: a value is missing, unknown or does not fit its criterion.
    """
    leaves = rubric.leaves()
    unlabelled: set[int] = set()
    if isinstance(values, Mapping):
        keys = {c.key: i for i, c in enumerate(leaves) if c.key is not None}
        keys.update({c.name: i for i, c in enumerate(leaves) if c.name and c.name not in keys})
        unlabelled = {keys[k] for k, v in values.items() if v is None and k in keys}
        values = {k: ("CANNOT_ASSESS" if v is None else v) for k, v in values.items()}
    elif not isinstance(values, str | bytes):
        listed = list(values)
        unlabelled = {i for i, v in enumerate(listed) if v is None}
        values = ["CANNOT_ASSESS" if v is None else v for v in listed]
    out: GroundTruth = []
    stack = list(reversed(reports_from_verdicts(rubric, values, label=where)))
    while stack:
        r = stack.pop()
        if r.children:
            stack.extend(reversed(r.children))
        else:
            out.append(label_of(r))
    return [None if i in unlabelled else v for i, v in enumerate(out)]


def label_of(report: CriterionReport) -> CriterionVerdict | str:
    """How ground truth stores a leaf's checked value: a verdict, an option label or a number.

    The one rule for label values (``parse_verdict`` reads them): a dataset file and the
    labelling page store the same value the same way.
    """
    if report.selection is not None:
        return report.selection.label
    if report.scale_score is not None:  # kept as text, read back as the same number
        return f"{report.scale_score.score:g}"
    assert report.verdict is not None
    return report.verdict


def _label(value: CriterionVerdict | str | None) -> str:
    if value is None:
        return "(unlabelled)"
    return value.value if isinstance(value, CriterionVerdict) else value


@dataclass
class DatasetBase:
    """The data of a :class:`RubricDataset` (its fields are documented there), without files.

    ``RubricDataset`` (in ``_io``) adds reading and writing files, so this module
    never imports the file code that imports it.
    """

    prompt: str
    rubric: Rubric | None = None
    items: list[DataItem] = field(default_factory=list)
    name: str | None = None
    reference_submission: str | Submission | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    # ids of ``items``, for the uniqueness check; rebuilt when ``items`` was changed
    # behind our back (replaced, or appended to directly)
    _ids: tuple[list[DataItem], int, set[str]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        given, self.items = self.items, []
        for i, item in enumerate(given):
            self._append(self._checked(item, f"items[{i}]"))

    def _known_ids(self) -> set[str]:
        index = self._ids
        if index is None or index[0] is not self.items or index[1] != len(self.items):
            ids = {it.id for it in self.items if it.id is not None}
            index = self._ids = (self.items, len(self.items), ids)
        return index[2]

    def _append(self, item: DataItem) -> None:
        ids = self._known_ids()
        self.items.append(item)
        if item.id is not None:
            ids.add(item.id)
        self._ids = (self.items, len(self.items), ids)

    # -- items -----------------------------------------------------------------------------
    def _checked(self, item: DataItem, where: str) -> DataItem:
        if not isinstance(item, DataItem):
            raise DatasetError(f"{where}: expected a DataItem, got {type(item).__name__}")
        if isinstance(item.submission, list | tuple):  # chat messages given as they came
            try:
                conv, media = read_messages_with_media(item.submission, where=f"{where}.messages")
            except ConversationError as e:
                raise DatasetError(str(e)) from None
            item = replace(
                item, submission=Submission.of_conversation(conv, media) if media else conv
            )
        item = _whole_characters(item)
        if not isinstance(item.submission, str | Conversation | Submission):
            raise DatasetError(
                f"{where}.submission: expected a string or a conversation, got "
                f"{type(item.submission).__name__}; JSON-encode other structured submissions"
            )
        rubric = item.rubric if item.rubric is not None else self.rubric
        if rubric is None:
            raise DatasetError(
                f"{where}: the item has no rubric and the dataset has no global rubric; "
                "give one of them"
            )
        if item.id is not None and (not isinstance(item.id, str) or not item.id.strip()):
            raise DatasetError(f"{where}.id: {item.id!r} is not a non-empty string")
        if item.id is not None and item.id in self._known_ids():
            raise DatasetError(f"{where}.id: {item.id!r} is already used; item ids must be unique")
        if item.ground_truth is None:
            return item
        if isinstance(item.ground_truth, str | bytes):
            raise DatasetError(f"{where}.ground_truth: expected a list or a mapping, not a string")
        try:
            truth = normalize_ground_truth(rubric, item.ground_truth, where=f"{where}.ground_truth")
        except VerdictError as e:
            raise DatasetError(str(e)) from None
        return replace(item, ground_truth=truth)

    def add_item(
        self,
        submission: str | Conversation | Sequence[Mapping[str, Any]],
        description: str = "",
        ground_truth: Sequence[Any] | Mapping[str, Any] | None = None,
        rubric: Rubric | None = None,
        reference_submission: str | None = None,
        *,
        id: str | None = None,
        query: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        """Append an item after checking it.

        Raises:
            DatasetError: no rubric applies, the id is taken, or the ground truth does not
                fit the effective rubric (wrong length, unknown label, bad verdict).
        """
        item = DataItem(
            submission=submission,  # type: ignore[arg-type]  # messages are read by _checked
            description=description,
            ground_truth=ground_truth,  # type: ignore[arg-type]  # normalised by _checked
            rubric=rubric,
            reference_submission=reference_submission,
            id=id,
            query=query,
            metadata=dict(metadata or {}),
        )
        self._append(self._checked(item, f"items[{len(self.items)}]"))

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[DataItem]:
        return iter(self.items)

    def get_item_rubric(self, idx: int) -> Rubric:
        """Return the rubric for item ``idx``: its own, else the dataset's.

        Raises:
            DatasetError: neither the item nor the dataset has a rubric.
        """
        item = self.items[idx]
        if item.rubric is not None:
            return item.rubric
        if self.rubric is not None:
            return self.rubric
        raise DatasetError(f"item {idx} has no rubric and the dataset has no global rubric")

    def get_item_reference_submission(self, idx: int) -> str | Submission | None:
        """Return the reference for item ``idx``: its own, else the dataset's, else None."""
        item = self.items[idx]
        if item.reference_submission is not None:
            return item.reference_submission
        return self.reference_submission

    def get_item_query(self, idx: int) -> str:
        """Return the request item ``idx`` answers: its query, else the dataset's prompt."""
        item = self.items[idx]
        return item.query if item.query is not None else self.prompt

    # -- the global rubric -------------------------------------------------------------------
    def _global(self) -> Rubric:
        if self.rubric is None:
            raise DatasetError("the dataset has no global rubric (each item has its own)")
        return self.rubric

    @property
    def criterion_names(self) -> list[str]:
        """Names of the global rubric's leaf criteria (name, else id, else ``criterion_<i>``)."""
        return [c.name or c.id or f"criterion_{i}" for i, c in enumerate(self._global().leaves())]

    @property
    def num_criteria(self) -> int:
        """Number of leaf criteria in the global rubric (ground-truth length)."""
        return len(self._global().leaves())

    @property
    def total_positive_weight(self) -> float:
        """Sum of the global rubric's positive top-level weights."""
        return self._global().total_positive_weight

    def compute_weighted_score(
        self,
        verdicts: Sequence[Any] | Mapping[str, Any],
        normalize: bool = True,
        rubric: Rubric | None = None,
        *,
        cannot_assess_strategy: CannotAssessStrategy | str = CannotAssessStrategy.SKIP,
        partial_credit: float = 0.5,
    ) -> float | None:
        """Score verdicts (e.g. ground truth) with ``rubric`` or the global rubric.

        None when nothing with a non-zero weight counted (see ``Rubric.compute_score``).

        The same computation as ``Rubric.compute_score`` and every grader.

        Raises:
            DatasetError: no rubric is given and the dataset has none.
            VerdictError: a verdict does not fit its criterion.
        """
        effective = rubric if rubric is not None else self.rubric
        if effective is None:
            raise DatasetError("cannot compute a score: no rubric given and no global rubric set")
        return effective.compute_score(
            verdicts,
            normalize=normalize,
            cannot_assess_strategy=cannot_assess_strategy,
            partial_credit=partial_credit,
        )

    # -- splitting -------------------------------------------------------------------------------
    def _with_items(self, items: list[DataItem]) -> Self:
        out = replace(self, items=[])
        out.items = list(items)  # already checked; skip __post_init__'s work
        return out

    def split_train_test(
        self, n_train: int, *, stratify: bool = True, seed: int | None = None
    ) -> tuple[Self, Self]:
        """Split into ``n_train`` training items and the rest, optionally stratified.

        With ``stratify`` the split keeps, for every criterion position, the proportion
        of each ground-truth value (MET / UNMET / CANNOT_ASSESS or option label) close to
        the whole dataset's; every item needs ground truth. Items keep their order.

        Raises:
            DatasetError: ``n_train`` is out of range, or ``stratify`` is set and an item
                has no ground truth.
        """
        n = len(self.items)
        if not 0 <= n_train <= n:
            raise DatasetError(
                f"n_train must be between 0 and {n} (the dataset size), got {n_train}"
            )
        rng = random.Random(seed)
        if stratify:
            missing = [i for i, it in enumerate(self.items) if it.ground_truth is None]
            if missing:
                raise DatasetError(
                    f"items[{missing[0]}] has no ground_truth; stratify=True needs it on every "
                    "item (or pass stratify=False)"
                )
            labels = [[_label(v) for v in it.ground_truth or []] for it in self.items]
            train_idx = stratified_split(labels, n_train, rng)
        else:
            order = list(range(n))
            rng.shuffle(order)
            train_idx = set(order[:n_train])
        train = [it for i, it in enumerate(self.items) if i in train_idx]
        test = [it for i, it in enumerate(self.items) if i not in train_idx]
        return self._with_items(train), self._with_items(test)
