"""Dataset files: JSON, YAML and JSON Lines.

JSON and YAML hold one object::

    name: essay-grading-v1          # optional
    prompt: Explain photosynthesis  # required
    rubric: {...}                   # required; null when every item has its own
    reference_submission: ...       # optional
    metadata: {...}                 # optional
    items:
      - submission: ...             # required, or messages: [...] (a conversation)
        description: ...            # optional ("" when left out)
        id: item-1                  # optional, unique
        query: ...                  # optional
        ground_truth: [MET, "Good"] # optional: a list in leaf order, or {name: value}
        rubric: {...}               # optional per-item rubric
        reference_submission: ...   # optional
        metadata: {...}             # optional

JSON Lines puts the same fields on lines: the first line is the header (every
top-level field except ``items``), each further non-blank line is one item.
Rubrics may be in any format ``rubricjudge`` reads (native, autorubric, OpenRubricRL,
dataknobs) and are written in the native format. Unknown keys are errors.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import yaml

from .._conversations._conversation import Conversation
from .._conversations._media_source import media_source
from .._conversations._messages import read_messages_with_media
from .._conversations._submission import Submission, read_parts, to_reference
from .._errors import ConfigError, ConversationError, DatasetError
from .._formats._load import load_data
from .._limits import MAX_DATASET_BYTES, DataLimitError, json_loads, read_text, yaml_load
from .._model._rubric import CriterionVerdict, Rubric
from .._outfile import write_output
from ._dataset import DataItem, DatasetBase

__all__ = [
    "RubricDataset",
    "dataset_from_dict",
    "dataset_to_dict",
    "dump_file",
    "dump_text",
    "kind_of",
    "load_file",
    "load_text",
    "read_dataset_text",
]

_TOP = ("name", "prompt", "rubric", "reference_submission", "metadata", "items")
_ITEM = (
    "id",
    "submission",
    "messages",
    "system",
    "description",
    "query",
    "ground_truth",
    "rubric",
    "reference_submission",
    "metadata",
)


# -- writing ---------------------------------------------------------------------------------
def _item_to_dict(item: DataItem) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if item.id is not None:
        out["id"] = item.id
    if isinstance(item.submission, Conversation):
        out["messages"] = item.submission.to_openai()  # OpenAI's form: read back the same
    elif isinstance(item.submission, Submission):  # with images or documents, inline
        key = "messages" if item.submission.conversation is not None else "submission"
        out[key] = item.submission.to_data()
    else:
        out["submission"] = item.submission
    out["description"] = item.description
    if item.query is not None:
        out["query"] = item.query
    out["ground_truth"] = (
        None
        if item.ground_truth is None
        else [v.value if isinstance(v, CriterionVerdict) else v for v in item.ground_truth]
    )
    if item.rubric is not None:
        out["rubric"] = item.rubric.to_dict()
    if item.reference_submission is not None:
        out["reference_submission"] = _reference_data(item.reference_submission)
    if item.metadata:
        out["metadata"] = item.metadata
    return out


def _reference_data(reference: str | Submission) -> Any:
    """A reference as a file holds it: text, or parts with the bytes inline."""
    return reference.to_data() if isinstance(reference, Submission) else reference


def _reference(data: dict[str, Any], where: str) -> str | Submission | None:
    """``reference_submission``: text, or content parts (``[reference image 1]``)."""
    value = data.get("reference_submission")
    if not isinstance(value, list):
        return _opt_str(data, "reference_submission", where)
    try:
        ref = to_reference(value, where="reference_submission")
    except ConfigError as e:
        raise DatasetError(f"{where}.{e}") from None
    return ref if ref is not None and ref.media else (ref.output if ref is not None else None)


def _header(ds: RubricDataset) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if ds.name is not None:
        out["name"] = ds.name
    out["prompt"] = ds.prompt
    out["rubric"] = ds.rubric.to_dict() if ds.rubric is not None else None
    if ds.reference_submission is not None:
        out["reference_submission"] = _reference_data(ds.reference_submission)
    if ds.metadata:
        out["metadata"] = ds.metadata
    return out


def dataset_to_dict(ds: RubricDataset) -> dict[str, Any]:
    """Return the dataset as plain data in the JSON/YAML layout."""
    return {**_header(ds), "items": [_item_to_dict(it) for it in ds.items]}


class _Dumper(yaml.SafeDumper):
    """Safe YAML with multi-line strings as ``|`` blocks, so submissions stay readable."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump_text(ds: RubricDataset, kind: str, *, indent: int | None = 2) -> str:
    """Return the dataset as ``json``, ``yaml`` or ``jsonl`` text."""
    if kind == "json":
        return json.dumps(dataset_to_dict(ds), indent=indent, ensure_ascii=False)
    if kind == "yaml":
        out: str = yaml.dump(
            dataset_to_dict(ds), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100
        )
        return out
    if kind == "jsonl":
        lines = [_header(ds), *(_item_to_dict(it) for it in ds.items)]
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    raise DatasetError(f"unknown dataset format {kind!r}; use 'json', 'yaml' or 'jsonl'")


def kind_of(path: Path) -> str:
    """``json``, ``jsonl`` or ``yaml``, by the file's extension (JSON unless it says otherwise)."""
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return "yaml"
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    return "json"


def dump_file(ds: RubricDataset, path: str | Path) -> None:
    """Write the dataset to ``path`` in the format its extension names (JSON by default)."""
    write_output(path, dump_text(ds, kind_of(Path(path))))


# -- reading ---------------------------------------------------------------------------------
def _unknown(keys: Any, allowed: tuple[str, ...], where: str) -> None:
    for k in keys:
        if k not in allowed:
            near = difflib.get_close_matches(str(k), allowed, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise DatasetError(f"{where}: unknown key {k!r}{hint} (allowed: {', '.join(allowed)})")


def _opt_str(data: dict[str, Any], key: str, where: str) -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    if key == "id" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise DatasetError(f"{where}.{key}: expected a string, got {type(value).__name__} {value!r}")


def _metadata(data: dict[str, Any], where: str) -> dict[str, Any]:
    value = data.get("metadata")
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise DatasetError(f"{where}.metadata: expected a mapping, got {type(value).__name__}")
    return dict(value)


def _rubric(data: Any, where: str) -> Rubric | None:
    if data is None:
        return None
    return load_data(data, source=where)


def _header_from(data: Any, source: str, *, jsonl: bool) -> RubricDataset:
    what = "the first line (the header)" if jsonl else "the top level"
    if not isinstance(data, dict):
        raise DatasetError(f"{source}: {what} must be an object, got {type(data).__name__}")
    if jsonl and ("submission" in data or "messages" in data):
        raise DatasetError(
            f"{source} line 1: the first line must be the dataset header "
            "({'prompt': ..., 'rubric': ...}), not an item"
        )
    allowed = tuple(k for k in _TOP if k != "items") if jsonl else _TOP
    where = f"{source} line 1" if jsonl else source
    _unknown(data, allowed, where)
    for key in ("prompt", "rubric"):
        if key not in data:
            extra = " (null when every item has its own)" if key == "rubric" else ""
            raise DatasetError(f"{where}: missing required field {key!r}{extra}")
    if not isinstance(data["prompt"], str):
        raise DatasetError(
            f"{where}.prompt: expected a string, got {type(data['prompt']).__name__}"
        )
    return RubricDataset(
        prompt=data["prompt"],
        rubric=_rubric(data["rubric"], f"{source}: rubric"),
        name=_opt_str(data, "name", where),
        reference_submission=_reference(data, where),
        metadata=_metadata(data, where),
    )


def _add(ds: RubricDataset, data: Any, source: str, where: str) -> None:
    """Check and append one item; ``source`` is the file (and line), ``where`` the item path."""
    full = f"{source}: {where}"
    if not isinstance(data, dict):
        raise DatasetError(f"{full}: an item must be an object, got {type(data).__name__}")
    _unknown(data, _ITEM, full)
    submission = _submission(data, full)
    truth = data.get("ground_truth")
    if truth is not None and not isinstance(truth, list | dict):
        raise DatasetError(
            f"{full}.ground_truth: expected a list (leaf order) or a mapping, "
            f"got {type(truth).__name__} {truth!r}"
        )
    item = DataItem(
        submission=submission,
        description=_opt_str(data, "description", full) or "",
        ground_truth=cast(Any, truth),  # checked and normalised by _checked below
        rubric=_rubric(data.get("rubric"), f"{full}.rubric"),
        reference_submission=_reference(data, full),
        id=_opt_str(data, "id", full),
        query=_opt_str(data, "query", full),
        metadata=_metadata(data, full),
    )
    try:
        ds._append(ds._checked(item, where))  # keeps the id index: no rescan per item
    except DatasetError as e:
        raise DatasetError(f"{source}: {e}") from None


def _submission(data: dict[str, Any], full: str) -> str | Conversation | Submission:
    """An item's ``submission`` (text) or ``messages`` (a conversation, with ``system``).

    Content parts with images or documents, in either, make a :class:`Submission`.
    """
    has_text, has_messages = "submission" in data, "messages" in data
    if has_text == has_messages:
        which = (
            "give 'submission' or 'messages', not both"
            if has_text
            else ("missing required field 'submission' (or 'messages' for a conversation)")
        )
        raise DatasetError(f"{full}: {which}")
    if "system" in data and not has_messages:
        raise DatasetError(f"{full}.system: 'system' goes with 'messages' (Anthropic's system)")
    if has_messages:
        try:
            conv, media = read_messages_with_media(
                data["messages"], system=data.get("system"), where="messages"
            )
        except ConversationError as e:
            raise DatasetError(f"{full}.{e}") from None
        return Submission.of_conversation(conv, media) if media else conv
    if isinstance(data["submission"], list):
        try:
            return read_parts(data["submission"], where="submission")
        except ConfigError as e:
            raise DatasetError(f"{full}.{e}") from None
    if not isinstance(data["submission"], str):
        raise DatasetError(
            f"{full}.submission: expected a string, got {type(data['submission']).__name__}; "
            "JSON-encode structured submissions, give content parts as a list, or a "
            "conversation as 'messages'"
        )
    return str(data["submission"])


def dataset_from_dict(data: Any, *, source: str = "<data>") -> RubricDataset:
    """Build a dataset from plain data in the JSON/YAML layout; errors name ``source``."""
    ds = _header_from(data, source, jsonl=False)
    items = data.get("items", [])
    if not isinstance(items, list):
        raise DatasetError(f"{source}: items: expected a list, got {type(items).__name__}")
    for i, item in enumerate(items):
        _add(ds, item, source, f"items[{i}]")
    return ds


def _jsonl(text: str, source: str) -> RubricDataset:
    rows: list[tuple[int, Any]] = []
    # JSON lines end at "\n" alone: str.splitlines() would also split at U+2028, U+2029
    # and U+0085, which JSON (and our writers) keep raw inside strings
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            rows.append((n, json_loads(line, source=source, line=n)))
        except json.JSONDecodeError as e:
            raise DatasetError(
                f"{source} line {n}: not valid JSON: {e.msg} (column {e.colno})"
            ) from None
        except DataLimitError as e:
            raise DatasetError(f"{source} line {n}: {e}") from None
    if not rows:
        raise DatasetError(f"{source}: empty; the first line must be the dataset header")
    ds = _header_from(rows[0][1], source, jsonl=True)
    for i, (n, row) in enumerate(rows[1:]):
        _add(ds, row, f"{source} line {n}", f"items[{i}]")
    return ds


def load_text(text: str, kind: str, *, source: str = "<text>") -> RubricDataset:
    """Parse ``json``, ``yaml`` or ``jsonl`` text into a dataset."""
    if kind == "jsonl":
        return _jsonl(text, source)
    parse: Callable[..., Any]
    if kind == "json":
        parse = json_loads
    elif kind == "yaml":
        parse = yaml_load
    else:
        raise DatasetError(f"unknown dataset format {kind!r}; use 'json', 'yaml' or 'jsonl'")
    try:
        data = parse(text, source=source)
    except json.JSONDecodeError as e:
        raise DatasetError(f"{source}: not valid JSON: {e.msg} (line {e.lineno})") from None
    except yaml.YAMLError as e:
        raise DatasetError(f"{source}: not valid YAML: {e}") from None
    except DataLimitError as e:
        raise DatasetError(f"{source}: {e}") from None
    return dataset_from_dict(data, source=source)


def read_dataset_text(path: Path) -> str:
    """The text of the dataset file at ``path``, within the size limit.

    Raises:
        DatasetError: naming the file, when it is missing, unreadable, too large or
            not UTF-8 text.
    """
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


def load_file(path: str | Path) -> RubricDataset:
    """Load a dataset file; ``.yaml``/``.yml`` YAML, ``.jsonl`` JSON Lines, else JSON."""
    p = Path(path)
    text = read_dataset_text(p)
    with media_source(p):  # images' paths start from the file's folder and stay in it
        return load_text(text, kind_of(p), source=str(p))


@dataclass
class RubricDataset(DatasetBase):
    """Items tied to one prompt and (usually) one rubric, read from and written to files.

    Attributes:
        prompt: The prompt the submissions answer.
        rubric: The rubric for every item without its own; may be None when each item has one.
        items: The items, in order.
        name: A name for the dataset ("essay-grading-v1").
        reference_submission: An exemplar answer for every item without its own.
        metadata: Free-form facts about the dataset (source, licence, ...).
    """

    def to_dict(self) -> dict[str, Any]:
        """Return the dataset as plain data (the JSON/YAML layout)."""
        return dataset_to_dict(self)

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "<data>") -> RubricDataset:
        """Build a dataset from plain data (the JSON/YAML layout); errors name ``source``."""
        return dataset_from_dict(data, source=source)

    def to_json(self, indent: int | None = 2) -> str:
        """Return the dataset as JSON text."""
        return dump_text(self, "json", indent=indent)

    @classmethod
    def from_json(cls, json_string: str, *, source: str = "<json>") -> RubricDataset:
        """Parse a dataset from JSON text."""
        return load_text(json_string, "json", source=source)

    def to_yaml(self) -> str:
        """Return the dataset as YAML text."""
        return dump_text(self, "yaml")

    @classmethod
    def from_yaml(cls, text: str, *, source: str = "<yaml>") -> RubricDataset:
        """Parse a dataset from YAML text."""
        return load_text(text, "yaml", source=source)

    def to_jsonl(self) -> str:
        """Return the dataset as JSON Lines: a header line, then one item per line."""
        return dump_text(self, "jsonl")

    @classmethod
    def from_jsonl(cls, text: str, *, source: str = "<jsonl>") -> RubricDataset:
        """Parse a dataset from JSON Lines text (header line, then items)."""
        return load_text(text, "jsonl", source=source)

    def to_file(self, path: str | Path) -> None:
        """Write to ``path``: ``.yaml``/``.yml`` YAML, ``.jsonl`` JSON Lines, else JSON."""
        dump_file(self, path)

    @classmethod
    def from_file(cls, path: str | Path) -> RubricDataset:
        """Load from ``path``, the format chosen by extension as in :meth:`to_file`."""
        return load_file(path)
