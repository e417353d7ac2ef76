"""A dataset file edited in place: only items' labels change, everything else is kept.

The file is parsed twice: by the dataset loader (which checks it and gives the
rubrics) and as plain data in its own format, where an item's ``ground_truth`` and
``metadata.human_labels`` are replaced and the rest is written back as it was:

* JSON keeps its key order and indentation (2 or 4 spaces, or one line);
* JSON Lines rewrites only the lines of the items that changed, byte for byte the
  others;
* YAML goes through ruamel.yaml's round trip, which keeps comments, key order,
  quoting and the indentation of lists; the values written are quoted so that a
  YAML 1.1 reader (PyYAML, our loader) reads ``Yes`` or a time as text.

Every text written is parsed again by the dataset loader before it replaces the
file, so a bug here can never leave a file that rubricjudge itself refuses.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._datasets._io import RubricDataset, load_text
from .._errors import DatasetError, missing_extra
from .._limits import MAX_DATASET_BYTES, DataLimitError, json_loads, read_text

__all__ = ["DatasetFile", "kind_of"]


def kind_of(path: Path) -> str:
    """``json``, ``jsonl`` or ``yaml``, by extension as the dataset loader decides."""
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return "yaml"
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    return "json"


def _read(path: Path) -> str:
    try:
        return read_text(path, MAX_DATASET_BYTES)
    except DataLimitError as e:
        raise DatasetError(f"dataset file {str(path)!r}: {e}") from None
    except UnicodeDecodeError as e:
        raise DatasetError(f"dataset file {str(path)!r} is not UTF-8 text ({e.reason})") from None
    except FileNotFoundError:
        raise DatasetError(f"dataset file {str(path)!r} not found") from None
    except OSError as e:
        raise DatasetError(f"cannot read dataset file {str(path)!r}: {e.strerror}") from None


def _yaml() -> Any:
    try:
        from ruamel.yaml import YAML
    except ImportError:
        raise missing_extra(
            "label", "labelling a YAML dataset keeps its comments with ruamel.yaml"
        ) from None
    y = YAML()  # round trip
    y.preserve_quotes = True
    y.width = 1 << 16  # never fold a long line that was one line
    return y


def _yaml_offset(text: str) -> int:
    """How far this file indents a list's dashes under their key (0 or 2)."""
    key = re.compile(r"^( *)[^\s#-][^:]*:\s*$")
    lines = text.splitlines()
    for prev, line in zip(lines, lines[1:], strict=False):
        k = key.match(prev)
        dash = re.match(r"^( *)- ", line)
        if k and dash:
            return 2 if len(dash.group(1)) - len(k.group(1)) >= 2 else 0
    return 0


def _quoted(value: Any) -> Any:
    """``value`` with every string double-quoted in YAML output (read back as text)."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    if isinstance(value, str):
        return DoubleQuotedScalarString(value)
    if isinstance(value, dict):
        return {_quoted(k): _quoted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_quoted(v) for v in value]
    return value


@dataclass
class DatasetFile:
    """The text of a dataset file, its parsed dataset, and an editable copy of its data."""

    path: Path
    kind: str
    text: str
    dataset: RubricDataset
    _data: Any = None  # JSON/YAML: the whole document; JSONL: None (lines are edited)
    _lines: list[str] | None = None
    _item_lines: list[int] | None = None  # JSONL: the line index of each item
    _indent: int | None = 2
    keys: dict[str, int] | None = None  # item name -> index, filled by the store when asked

    @classmethod
    def read(cls, path: Path) -> DatasetFile:
        """Read and check ``path``."""
        text = _read(path)
        return cls.parse(path, text)

    @classmethod
    def parse(cls, path: Path, text: str) -> DatasetFile:
        """Check ``text`` (the contents of ``path``) and keep it editable."""
        kind = kind_of(path)
        dataset = load_text(text, kind, source=str(path))
        out = cls(path, kind, text, dataset)
        if kind == "jsonl":
            out._lines = text.splitlines(keepends=True)
            rows = [i for i, line in enumerate(out._lines) if line.strip()]
            out._item_lines = rows[1:]  # the first is the header
        elif kind == "json":
            out._data = json_loads(text)
            second = text.split("\n", 2)[1:2]
            if not second:
                out._indent = None  # all on one line
            else:
                spaces = len(second[0]) - len(second[0].lstrip(" "))
                out._indent = spaces or 2
        else:
            y = _yaml()
            out._data = y.load(text)
        return out

    def item_data(self, index: int) -> dict[str, Any]:
        """The raw mapping of item ``index``, as in the file."""
        if self._item_lines is not None:
            assert self._lines is not None
            row: dict[str, Any] = json_loads(self._lines[self._item_lines[index]])
            return row
        item: dict[str, Any] = self._data["items"][index]
        return item

    def with_labels(self, changes: dict[int, tuple[Any, dict[str, Any] | None]]) -> DatasetFile:
        """The file with items' ground truth and label records replaced, checked.

        ``changes`` maps an item index to its new ``ground_truth`` (a mapping or list)
        and ``metadata.human_labels`` (None removes the key). The edit is made on this
        object's data, which belongs to the returned file afterwards: use that one.

        Raises:
            DatasetError: the new text does not load (a bug; nothing is written then).
        """
        lines = None
        if self._item_lines is not None:
            lines = self._jsonl(changes)
            text = "".join(lines)
        else:
            for index, (truth, records) in changes.items():
                self._set(self._data["items"][index], truth, records)
            text = self._dump()
        try:
            dataset = load_text(text, self.kind, source=str(self.path))
        except DatasetError as e:  # pragma: no cover - would be a bug in this module
            raise DatasetError(
                f"refusing to write {self.path}: the result would not load: {e}"
            ) from None
        return DatasetFile(
            self.path,
            self.kind,
            text,
            dataset,
            _data=self._data,
            _lines=lines,
            _item_lines=self._item_lines,
            _indent=self._indent,
        )

    def _set(self, item: Any, truth: Any, records: dict[str, Any] | None) -> None:
        yaml = self.kind == "yaml"
        item["ground_truth"] = _quoted(truth) if yaml else truth
        meta = item.get("metadata")
        if records is None:
            if isinstance(meta, dict) and "human_labels" in meta:
                del meta["human_labels"]
            return
        if not isinstance(meta, dict):
            meta = item["metadata"] = {}
        meta["human_labels"] = _quoted(records) if yaml else records

    def _jsonl(self, changes: dict[int, tuple[Any, dict[str, Any] | None]]) -> list[str]:
        assert self._lines is not None and self._item_lines is not None
        lines = list(self._lines)
        for index, (truth, records) in changes.items():
            at = self._item_lines[index]
            row = json_loads(lines[at])
            self._set(row, truth, records)
            ending = lines[at][len(lines[at].rstrip("\r\n")) :] or "\n"
            lines[at] = json.dumps(row, ensure_ascii=False) + ending
        return lines

    def _dump(self) -> str:
        if self.kind == "json":
            text = json.dumps(self._data, ensure_ascii=False, indent=self._indent)
            return text + "\n" if self.text.endswith("\n") else text
        y = _yaml()
        offset = _yaml_offset(self.text)
        y.indent(mapping=2, sequence=2 + offset, offset=offset)
        buf = io.StringIO()
        y.dump(self._data, buf)
        return buf.getvalue()

    def items(self) -> Iterator[tuple[int, Any]]:
        """Each item of the parsed dataset with its index."""
        return iter(enumerate(self.dataset.items))
