r"""Bounds on the data rubricjudge reads: size, nesting, YAML aliases and integer length.

Rubric, dataset and verdict files are data from anywhere, so reading one must take
bounded time and memory whatever it holds:

* a file is read only up to ``MAX_FILE_BYTES`` (64 MiB; datasets
  ``MAX_DATASET_BYTES``, 1 GiB);
* YAML aliases may expand to at most ``MAX_ALIAS_NODES`` (100,000) nodes in all: a
  "billion laughs" file of a few lines of nested aliases is refused instead of
  being expanded into gigabytes;
* data may nest at most ``MAX_DEPTH`` (64) levels of lists and mappings;
* an integer may have at most 4,300 digits (Python's own limit, reported cleanly).

And every string read holds only characters: a lone UTF-16 surrogate (``"\ud800"``,
valid JSON, what JavaScript leaves when it cuts a string inside an emoji) is half of
a character that no UTF-8 file, SQLite database or web page can hold. ``json_loads``
and ``yaml_load`` replace each one with U+FFFD (the replacement character) and, when
told the file, say so once per file on stderr, naming the first line. The text
around it is kept: refusing the line would stop a whole run for half an emoji.

Each violation raises :class:`DataLimitError` (a ValueError) with a message that
says which bound was hit; the loaders turn it into their own error naming the file.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml

from ._errors import DataLimitError

__all__ = [
    "MAX_ALIAS_NODES",
    "MAX_DATASET_BYTES",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "DataLimitError",
    "check_depth",
    "describe_json_error",
    "json_loads",
    "numbered_lines",
    "read_text",
    "without_surrogates",
    "yaml_load",
]

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DATASET_BYTES = 1024 * 1024 * 1024
MAX_ALIAS_NODES = 100_000
MAX_DEPTH = 64


class _BoundedLoader(yaml.SafeLoader):
    """``SafeLoader`` that counts what aliases expand to and stops past the budget."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._sizes: dict[int, int] = {}
        self._expanded = 0

    def _size(self, node: yaml.Node) -> int:
        """Nodes in ``node``'s tree with its aliases expanded (memoised per node)."""
        stack: list[tuple[yaml.Node, bool]] = [(node, False)]
        while stack:
            current, done = stack.pop()
            key = id(current)
            if key in self._sizes:
                continue
            children = _children(current)
            if done:
                self._sizes[key] = 1 + sum(self._sizes.get(id(c), 1) for c in children)
                continue
            stack.append((current, True))
            stack.extend((c, False) for c in children if id(c) not in self._sizes)
        return self._sizes[id(node)]

    def compose_node(self, parent: Any, index: Any) -> Any:
        alias = self.check_event(yaml.AliasEvent)
        node = super().compose_node(parent, index)
        if alias and node is not None:
            self._expanded += self._size(node)
            if self._expanded > MAX_ALIAS_NODES:
                raise DataLimitError(
                    f"YAML aliases expand to more than {MAX_ALIAS_NODES:,} nodes; "
                    "write the data out instead of nesting aliases"
                )
        return node


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _too_deep() -> DataLimitError:
    return DataLimitError(f"data is nested more than {MAX_DEPTH} levels deep")


def _unreadable(e: ValueError) -> DataLimitError:
    """The error for a value Python refuses to build: in practice, a too long integer."""
    if "integer string conversion" in str(e):
        return DataLimitError(
            f"an integer has more than {sys.get_int_max_str_digits()} digits; "
            "write a number that long as a string"
        )
    return DataLimitError(f"a value cannot be read: {e}")


_SURROGATE = re.compile("[\ud800-\udfff]")
# what can make one: the character itself (text handed over from Python), or an escape
# of JSON (\\uD800) or YAML (\\uD800, \\U0000D800); pairs match too and are checked after
_MAY_HOLD = re.compile(r"[\ud800-\udfff]|\\(?:u|U0000)[dD][89a-fA-F]")
_HIGH = r"\\u[dD][89abAB][0-9a-fA-F]{2}"
_LOW = r"\\u[dD][c-fC-F][0-9a-fA-F]{2}"
_LONE = re.compile(rf"[\ud800-\udfff]|{_HIGH}(?!{_LOW})|(?<!{_HIGH}){_LOW}|\\U0000[dD][89a-fA-F]")
_MAY_HOLD_BYTES = re.compile(rb"\\(?:u|U0000)[dD][89a-fA-F]")
_noted: set[str] = set()


def may_hold_surrogates(text: str | bytes) -> bool:
    """Whether parsing ``text`` (JSON or YAML) could give a string with a lone surrogate.

    False is certain; True only says :func:`without_surrogates` must look. ``json.loads``
    decodes bytes with ``surrogatepass`` (and may read UTF-16 or UTF-32): only ASCII
    bytes with no NUL are read here, the rest may hold one.
    """
    if isinstance(text, bytes):
        if not text.isascii() or b"\0" in text:
            return True
        return (b"\\u" in text or b"\\U" in text) and _MAY_HOLD_BYTES.search(text) is not None
    if text.isascii() and "\\u" not in text and "\\U" not in text:
        return False
    return _MAY_HOLD.search(text) is not None


def without_surrogates(data: Any) -> tuple[Any, int]:
    """``data`` with each lone surrogate in its strings (keys too) replaced by U+FFFD.

    Returns:
        The data (the same object when nothing changed) and how many strings changed.
    """
    changed = 0

    def fix(value: Any) -> Any:
        nonlocal changed
        if isinstance(value, str):
            if _SURROGATE.search(value) is None:
                return value
            changed += 1
            # a pair written as two escapes decodes to one character already; what is
            # left here is lone: replace it (encode/decode would also turn pairs into ?)
            return _SURROGATE.sub("\ufffd", value)
        if isinstance(value, dict):
            return {fix(k): fix(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fix(v) for v in value]
        return value

    out = fix(data)
    return (out if changed else data), changed


def _scrubbed(text: str | bytes, data: Any, source: str | None, line: int | None) -> Any:
    """``data`` (parsed from ``text``) without lone surrogates; noted once per ``source``."""
    if isinstance(text, bytes):
        if b"\\u" not in text and b"\\U" not in text:
            return data
    elif "\\u" not in text and "\\U" not in text and text.isascii():
        return data  # the common case, found without a regex
    elif _MAY_HOLD.search(text) is None:
        return data
    data, changed = without_surrogates(data)
    if changed and source is not None and source not in _noted:
        _noted.add(source)
        if line is None and isinstance(text, str):
            m = _LONE.search(text)
            line = None if m is None else text.count("\n", 0, m.start()) + 1
        where = f"{source} line {line}" if line is not None else source
        print(
            f"rubricjudge: note: {where}: half of a character (a lone UTF-16 surrogate, as "
            "JavaScript leaves when it cuts a string inside an emoji) was replaced by U+FFFD; "
            "the same is done on every other line of this file without another note",
            file=sys.stderr,
        )
    return data


def yaml_load(text: str, *, source: str | None = None) -> Any:
    """``yaml.safe_load`` within the bounds; a lone surrogate becomes U+FFFD.

    ``source`` names the file for the note said when a surrogate was replaced.

    Raises:
        DataLimitError: a bound was hit.
        yaml.YAMLError: a syntax error.
    """
    loader = _BoundedLoader(text)
    try:
        data = loader.get_single_data()
    except RecursionError:
        raise _too_deep() from None
    except DataLimitError:
        raise
    except ValueError as e:  # an integer past Python's digit limit
        raise _unreadable(e) from None
    finally:
        loader.dispose()
    check_depth(data)
    return _scrubbed(text, data, source, None)


def json_loads(
    text: str | bytes, *, source: str | None = None, line: int | None = None, **kwargs: Any
) -> Any:
    """``json.loads`` within the bounds (a JSONDecodeError passes through).

    A lone surrogate becomes U+FFFD; ``source`` (and ``line``, for one line of a JSON
    Lines file) name where the text came from in the note said once per file then.

    Raises:
        DataLimitError: a bound was hit.
    """
    try:
        data = json.loads(text, **kwargs)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise _too_deep() from None
    except ValueError as e:  # an integer past Python's digit limit
        raise _unreadable(e) from None
    check_depth(data)
    return _scrubbed(text, data, source, line)


def describe_json_error(e: json.JSONDecodeError, *, line: bool = True) -> str:
    """``e`` as one whole sentence: what is wrong and where (line and column).

    ``e.msg`` alone can end mid-phrase ("Invalid control character at"), so the
    position is always written after it.
    """
    where = f"line {e.lineno}, column {e.colno}" if line else f"column {e.colno}"
    return f"{e.msg.removesuffix(' at')} at {where}"


def check_depth(data: Any, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`DataLimitError` when ``data`` nests deeper than ``limit``."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list | tuple):
            children = value
        else:
            continue
        if depth >= limit:
            raise _too_deep()
        stack.extend((c, depth + 1) for c in children)


def read_text(path: str | Path, limit: int = MAX_FILE_BYTES) -> str:
    """Read a UTF-8 file of at most ``limit`` bytes.

    Read in blocks: asking for ``limit`` bytes at once would allocate all of them
    up front, however small the file.

    Raises:
        DataLimitError: the file is larger.
        OSError: it cannot be read.
    """
    p = Path(path)
    chunks: list[bytes] = []
    total = 0
    with p.open("rb") as f:
        while total <= limit:
            chunk = f.read(min(1024 * 1024, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    if total > limit:
        raise DataLimitError(f"the file is larger than {limit // (1024 * 1024)} MiB")
    return b"".join(chunks).decode("utf-8")


def numbered_lines(stream: Iterable[str]) -> Iterator[tuple[int, str]]:
    """``enumerate(stream, 1)`` where bytes that are not UTF-8 are a :class:`DataLimitError`.

    A text file decodes in blocks, so the bad byte lies somewhere after the last
    line handed out; the message says so rather than guess its line.
    """
    n = 0
    try:
        for n, line in enumerate(stream, 1):  # noqa: B007 - n is read after the loop
            yield n, line
    except UnicodeDecodeError as e:
        after = f" after line {n}" if n else ""
        raise DataLimitError(f"not UTF-8 text{after} ({e.reason}); save it as UTF-8") from None
