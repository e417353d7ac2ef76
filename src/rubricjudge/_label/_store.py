"""Labels written into the dataset file, durably, by any number of tabs and processes.

Every change is one transaction under an exclusive ``flock`` on a lock file beside
the dataset (``.NAME.label-lock``; the kernel drops it when its process dies, SIGKILL
included): read the file again if anyone changed it, apply the labels, write the
whole file to a temporary file, fsync, rename it over the dataset, fsync the
directory. Only then is the request answered, so an answered label is on disk, a
kill at any moment leaves the old file or the new one, and two writers never
overwrite each other's labels: each applies its labels to what the other wrote.

Per item and criterion, ``ground_truth`` holds the last label given by anyone;
``metadata.human_labels`` keeps each labeller's latest with its time (see
``rubricjudge._datasets._labels``). A label already in the file that no labeller
record explains (written by hand, say) is kept there as labeller ``(earlier)``
when someone first labels over it, so an undo brings it back.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import stat
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._atomic import write_text_atomic
from .._datasets._dataset import item_keys, label_of, normalize_ground_truth
from .._datasets._labels import LabelRecord, leaf_names, read_records
from .._errors import DatasetError, LabelError, StorageError, UnknownItem, VerdictError
from .._model._rubric import Criterion, CriterionVerdict, Rubric
from .._model._verdicts import parse_verdict
from ._file import DatasetFile

__all__ = ["EARLIER", "LabelStore", "item_names"]

EARLIER = "(earlier)"
"""The labeller of a label that was in the file before anyone labelled over it."""


def item_names(file: DatasetFile) -> list[str]:
    """How the page and the API name each item of ``file``: its id, else ``#index``.

    Unique by construction (``_datasets._dataset.item_keys``): an item whose own id is
    ``#1`` and the unnamed item at index 1 are two names, so a label sent for one is
    never written onto the other. Computed once per version of the file.
    """
    if file.names is None:
        file.names = item_keys(file.dataset.items)
    return file.names


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _signature(path: Path) -> tuple[int, int, int, int]:
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


def _value(v: Any) -> str | None:
    if v is None:
        return None
    return v.value if isinstance(v, CriterionVerdict) else str(v)


def check_label(criterion: Criterion, name: str, value: str) -> str:
    """``value`` as ground truth stores it for ``criterion``, by the dataset files' rule.

    Raises:
        LabelError: the value does not fit the criterion; the message lists what does.
    """
    try:
        stored = label_of(parse_verdict(criterion, value.strip()))
    except VerdictError:
        raise LabelError(_mismatch(criterion, name, value)) from None
    return stored.value if isinstance(stored, CriterionVerdict) else stored


def _mismatch(criterion: Criterion, name: str, value: str) -> str:
    if criterion.scale is not None:
        try:
            problem = criterion.scale.problem(float(value))
        except ValueError:
            problem = None
        if problem is not None:
            return f"criterion {name!r}: {problem}"
    return _choices(criterion, name, value)


def _choices(criterion: Criterion, name: str, value: str) -> str:
    if criterion.is_multi_choice:
        allowed = [o.label for o in criterion.options or []] + ["CANNOT_ASSESS"]
    elif criterion.scale is not None:
        s = criterion.scale
        allowed = [f"a number from {s.min:g} to {s.max:g}", "CANNOT_ASSESS"]
    else:
        allowed = ["MET", "UNMET", "CANNOT_ASSESS"]
    return f"criterion {name!r}: {value[:80]!r} is not a label of it; use one of: " + ", ".join(
        repr(a) for a in allowed
    )


@dataclass(frozen=True)
class Applied:
    """What one request changed: the labels as stored, and the dataset after it."""

    labels: dict[str, str | None]
    file: DatasetFile


class LabelStore:
    """The dataset file being labelled (thread-safe; safe across processes)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        real = Path(os.path.realpath(self.path))
        self.lock_path = real.parent / f".{real.name}.label-lock"
        self._mutex = threading.Lock()
        self._file = DatasetFile.read(self.path)
        self._sig = _signature(self.path)
        for i, item in self._file.items():
            read_records(item.metadata, f"{self.path}: items[{i}]")
        self.removed_temps = self._remove_stale_temps()

    def _remove_stale_temps(self) -> int:
        """Remove what a killed writer left: our own temporary copies of the dataset.

        ``write_text_atomic`` writes ``.NAME.XXXXXXXX.tmp`` beside the file and renames
        it over; a SIGKILL between the two leaves it behind. Only files of exactly
        that name (8 characters of ``tempfile``'s alphabet), regular files of this
        user, are removed, and only under the lock, when no writer of ours is busy.
        A directory we cannot lock (read-only) is left alone. Returns how many.
        """
        real = Path(os.path.realpath(self.path))
        ours = re.compile(rf"\.{re.escape(real.name)}\.[a-z0-9_]{{8}}\.tmp")
        removed = 0
        try:
            with self._locked():
                for entry in os.scandir(real.parent):
                    if not ours.fullmatch(entry.name):
                        continue
                    st = entry.stat(follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid():
                        os.unlink(entry.path)
                        removed += 1
        except (StorageError, OSError):
            pass
        return removed

    @staticmethod
    def key_at(file: DatasetFile, index: int) -> str:
        """The name of item ``index`` of ``file``."""
        return item_names(file)[index]

    @staticmethod
    def index_in(file: DatasetFile, key: str) -> int:
        """The index of the item named ``key`` in ``file``; UnknownItem if none."""
        keys = file.keys
        if keys is None:
            keys = file.keys = {name: i for i, name in enumerate(item_names(file))}
        index = keys.get(key)
        if index is None:
            raise UnknownItem(f"no item {key[:200]!r} in the dataset")
        return index

    def current(self) -> DatasetFile:
        """The dataset as it is on disk now (read again only when it changed)."""
        with self._mutex:
            self._refresh()
            return self._file

    def _refresh(self) -> None:
        sig = _signature(self.path)
        if sig != self._sig:
            self._file = DatasetFile.read(self.path)
            self._sig = sig

    @contextmanager
    def _locked(self) -> Iterator[None]:
        import fcntl

        with self._mutex:
            try:
                fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as e:
                raise StorageError(
                    f"cannot create the lock file {str(self.lock_path)!r} beside the dataset: "
                    f"{e.strerror}; the dataset's directory must be writable"
                ) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)  # releases the lock

    def apply(self, key: str, labels: Mapping[str, str | None], labeller: str) -> Applied:
        """Record ``labeller``'s ``labels`` on item ``key`` and write the file durably.

        A value of None withdraws the labeller's label on that criterion (undo).

        Raises:
            UnknownItem: no such item.
            LabelError: no such criterion, or a label that does not fit it.
            StorageError: the file could not be written (it is then unchanged).
        """
        with self._locked():
            self._refresh()
            index = self.index_in(self._file, key)
            file = self._file
            rubric = file.dataset.get_item_rubric(index)
            stored, truth, records = self._change(file, index, rubric, labels, labeller)
            try:
                new = file.with_labels({index: (truth, records)})
                write_text_atomic(self.path, new.text)
            except BaseException as e:
                self._sig = (0, 0, 0, 0)  # the copy in memory may be ahead of the disk
                if isinstance(e, OSError):
                    raise StorageError(f"cannot write {self.path}: {e.strerror or e}") from None
                raise
            self._file = new
            self._sig = _signature(self.path)
            return Applied(stored, new)

    def _change(
        self,
        file: DatasetFile,
        index: int,
        rubric: Rubric,
        labels: Mapping[str, str | None],
        labeller: str,
    ) -> tuple[dict[str, str | None], Any, dict[str, Any] | None]:
        item = file.dataset.items[index]
        names = leaf_names(rubric)
        leaves = dict(zip(names, rubric.leaves(), strict=True))
        stored: dict[str, str | None] = {}
        for name, value in labels.items():
            criterion = leaves.get(name)
            if criterion is None:
                known = ", ".join(repr(n) for n in names)
                raise LabelError(
                    f"item {item_names(file)[index]!r} has no criterion {name[:200]!r}; "
                    f"its criteria are {known}",
                )
            stored[name] = None if value is None else check_label(criterion, name, value)
        records = read_records(item.metadata, f"{file.path}: items[{index}]")
        truth = dict(zip(names, [_value(v) for v in item.ground_truth or []], strict=False))
        for name in names:
            truth.setdefault(name, None)
        now = _now()
        for name, value in stored.items():
            mine = records.setdefault(name, {})
            if truth[name] is not None and not mine:  # a label no record explains
                mine[EARLIER] = LabelRecord(str(truth[name]), "")
            if value is None:
                mine.pop(labeller, None)
            else:
                mine[labeller] = LabelRecord(value, now)
            if value is not None:
                truth[name] = value
            else:
                latest = max(mine.values(), key=lambda r: r.at, default=None)
                truth[name] = latest.label if latest is not None else None
            if not mine:
                del records[name]
        try:  # the same check the loader makes
            normalize_ground_truth(rubric, truth, where="ground_truth")
        except VerdictError as e:
            raise DatasetError(f"{file.path}: items[{index}]: {e}") from None
        keyed = all(c.key is not None for c in rubric.leaves())
        new_truth: Any = truth if keyed else [truth[n] for n in names]
        data = {c: {who: r.to_data() for who, r in by.items()} for c, by in records.items()}
        return stored, new_truth, data or None
