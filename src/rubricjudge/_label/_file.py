"""A dataset file edited in place: only items' labels change, everything else is kept.

The file is parsed twice: by the dataset loader (which checks it and gives the
rubrics) and as plain data in its own format, where an item's ``ground_truth`` and
``metadata.human_labels`` are replaced and the rest is written back as it was:

* JSON and JSON Lines: only the text of the items that changed is replaced (a JSON
  item is written with the file's indentation, where it stood); every other byte
  of the file stays as it was. The changed item is checked by the dataset
  loader's own item check, so its time does not grow with the file.
* YAML goes through ruamel.yaml's round trip, which keeps comments, key order,
  quoting and the indentation of lists; the values written are quoted so that a
  YAML 1.1 reader (PyYAML, our loader) reads ``Yes`` or a time as text. The whole
  new text is loaded by the dataset loader before it is written.

So a bug here can never leave a file that rubricjudge itself refuses.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._conversations._media_source import media_source
from .._datasets._io import RubricDataset, _add, kind_of, load_text, read_dataset_text
from .._errors import DatasetError, missing_extra
from .._limits import (
    without_surrogates,
)

__all__ = ["DatasetFile"]


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
    """How far this file indents a list's dashes under their key (0 or 2).

    Read from the ``items`` list when there is one: most of a dataset is there.
    """
    key = re.compile(r"^( *)[^\s#-][^:]*:\s*$")
    lines = text.splitlines()
    at = next((k for k, line in enumerate(lines) if re.match(r"^items:\s*$", line)), 0)
    lines = lines[at:]
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


_WS = re.compile(r"[ \t\n\r]*")


def _skip(text: str, i: int) -> int:
    """The first place at or after ``i`` that is not JSON whitespace."""
    m = _WS.match(text, i)
    return m.end() if m else i


def _line_spans(text: str) -> list[tuple[int, int]]:
    """Where each item line of a JSON Lines text is (the first non-blank line is the header)."""
    spans = []
    at = 0
    # lines end at "\n" alone, as the dataset reader splits them: str.splitlines()
    # would also split at U+2028, U+2029 and U+0085, which JSON keeps raw in strings
    for line in text.split("\n"):
        body = line.rstrip("\r")
        if body.strip():
            spans.append((at, at + len(body)))
        at += len(line) + 1
    return spans[1:]


def _item_spans(text: str) -> list[tuple[int, int]] | None:
    """Where each element of the top-level ``items`` list of a JSON text is.

    Walks the top-level object with the decoder's own scanner (the text was parsed
    whole before, so it is valid JSON); a repeated key counts as the parser counts
    it, the last one. None when there is no ``items`` list.
    """
    dec = json.JSONDecoder()
    i = _skip(text, 0)
    if text[i : i + 1] != "{":
        return None
    found: list[tuple[int, int]] | None = None
    i += 1
    while True:
        i = _skip(text, i)
        if text[i] == "}":
            return found
        key, i = dec.raw_decode(text, i)
        i = _skip(text, _skip(text, i) + 1)  # past the colon
        if key == "items" and text[i] == "[":
            found = []
            i = _skip(text, i + 1)
            while text[i] != "]":
                start = i
                _, i = dec.raw_decode(text, i)
                found.append((start, i))
                i = _skip(text, i)
                if text[i] == ",":
                    i = _skip(text, i + 1)
            i += 1
        else:
            _, i = dec.raw_decode(text, i)
        i = _skip(text, i)
        if text[i] == ",":
            i += 1


def _escaped(dumped: str) -> str:
    """JSON text with each lone surrogate written as its escape (UTF-8 cannot hold one)."""
    return _LONE.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)


_LONE = re.compile("[\ud800-\udfff]")


@dataclass
class DatasetFile:
    """The text of a dataset file, its parsed dataset, and an editable copy of its data."""

    path: Path
    kind: str
    text: str
    dataset: RubricDataset
    _data: Any = None  # YAML: the whole document (edited in place)
    _spans: list[tuple[int, int]] | None = None  # JSON/JSONL: where each item's text is
    _indent: str | None = "  "  # JSON: one level of the file's indentation (None: one line)
    _newline: str = "\n"  # how the file ends its lines ("\r\n" from Windows)
    keys: dict[str, int] | None = None  # item name -> index, filled by the store when asked
    names: list[str] | None = None  # each item's name, filled by the store when asked

    @classmethod
    def read(cls, path: Path) -> DatasetFile:
        """Read and check ``path``."""
        text = read_dataset_text(path)
        return cls.parse(path, text)

    @classmethod
    def parse(cls, path: Path, text: str) -> DatasetFile:
        """Check ``text`` (the contents of ``path``) and keep it editable."""
        kind = kind_of(path)
        with media_source(path):  # images' paths start from the file's folder and stay in it
            dataset = load_text(text, kind, source=str(path))
        out = cls(path, kind, text, dataset)
        end = text.find("\n")
        if end > 0 and text[end - 1] == "\r":
            out._newline = "\r\n"
        if kind == "jsonl":
            out._spans = _line_spans(text)
        elif kind == "json":
            out._spans = _item_spans(text)
            second = text.split("\n", 2)[1:2]
            if not second:
                out._indent = None  # all on one line
            else:  # spaces or tabs, as the file indents its first key
                line = second[0]
                out._indent = line[: len(line) - len(line.lstrip(" \t"))] or "  "
        else:
            out._data = _yaml().load(text)
        if out._spans is not None and len(out._spans) != len(dataset.items):
            raise DatasetError(f"{path}: cannot find each item's text; please report this")
        return out

    def with_labels(self, changes: dict[int, tuple[Any, dict[str, Any] | None]]) -> DatasetFile:
        """The file with items' ground truth and label records replaced, checked.

        ``changes`` maps an item index to its new ``ground_truth`` (a mapping or list)
        and ``metadata.human_labels`` (None removes the key). The edit is made on this
        object's data, which belongs to the returned file afterwards: use that one.

        Raises:
            DatasetError: the new text does not load (a bug; nothing is written then).
        """
        if self._spans is None:
            for index, (truth, records) in changes.items():
                self._set(self._data["items"][index], truth, records)
            text = self._dump()
            try:
                with media_source(self.path):
                    dataset = load_text(text, self.kind, source=str(self.path))
            except DatasetError as e:  # pragma: no cover - would be a bug in this module
                raise DatasetError(
                    f"refusing to write {self.path}: the result would not load: {e}"
                ) from None
            return DatasetFile(
                self.path, self.kind, text, dataset, _data=self._data, _newline=self._newline
            )
        text, spans = self.text, list(self._spans)
        items = list(self.dataset.items)
        for index, (truth, records) in sorted(changes.items()):
            start, end = spans[index]
            # read as written: a lone surrogate the loader shows as U+FFFD is written
            # back as the escape it was (_item_text), so labelling changes only labels
            row = json.loads(text[start:end])
            self._set(row, truth, records)
            items[index] = self._checked(without_surrogates(row)[0], index)
            chunk = self._item_text(row, text, start)
            text = text[:start] + chunk + text[end:]
            shift = len(chunk) - (end - start)
            spans[index] = (start, start + len(chunk))
            for k in range(index + 1, len(spans)):
                spans[k] = (spans[k][0] + shift, spans[k][1] + shift)
        return DatasetFile(
            self.path,
            self.kind,
            text,
            self.dataset._with_items(items),
            _spans=spans,
            _indent=self._indent,
            _newline=self._newline,
        )

    def _checked(self, row: dict[str, Any], index: int) -> Any:
        """The item ``row`` as the dataset loader checks it (its id is known to be unique)."""
        ds = self.dataset
        scratch = RubricDataset(
            prompt=ds.prompt, rubric=ds.rubric, reference_submission=ds.reference_submission
        )
        with media_source(self.path):
            _add(scratch, row, str(self.path), f"items[{index}]")
        return scratch.items[0]

    def _item_text(self, row: dict[str, Any], text: str, start: int) -> str:
        if self.kind == "jsonl" or self._indent is None:
            return _escaped(json.dumps(row, ensure_ascii=False))
        lead = text[text.rfind("\n", 0, start) + 1 : start]
        if lead.strip():  # the item starts after other text on its line: align with spaces
            lead = " " * len(lead)
        dumped = _escaped(json.dumps(row, ensure_ascii=False, indent=self._indent))
        return dumped.replace("\n", self._newline + lead)

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

    def _dump(self) -> str:
        y = _yaml()
        offset = _yaml_offset(self.text)
        y.indent(mapping=2, sequence=2 + offset, offset=offset)
        buf = io.StringIO()
        y.dump(self._data, buf)
        dumped = buf.getvalue()
        return dumped.replace("\n", "\r\n") if self._newline == "\r\n" else dumped

    def items(self) -> Iterator[tuple[int, Any]]:
        """Each item of the parsed dataset with its index."""
        return iter(enumerate(self.dataset.items))
