"""Reading and writing JSON / YAML text and files (data only: never code)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

import yaml

from .._errors import ConfigError, Problem, RubricError
from .._limits import DataLimitError, json_loads, read_text, yaml_load
from .._outfile import write_output

__all__ = ["TextKind", "dump_kind", "parse_text", "read_source", "render", "write_text"]

TextKind = Literal["json", "yaml"]
_YAML_SUFFIXES = (".yaml", ".yml")


def parse_text(text: str, kind: TextKind, source: str | None = None) -> Any:
    """Parse JSON or YAML text; a syntax error names the source, line and column.

    YAML goes through ``yaml.safe_load`` only, so no tag can build objects or run code,
    within the bounds of ``_limits`` (aliases, nesting, integer length).
    """
    if kind == "json":
        twice: list[str] = []
        try:
            data = json_loads(
                text, source=source, object_pairs_hook=lambda pairs: _json_object(pairs, twice)
            )
        except DataLimitError as e:
            raise RubricError([Problem("", f"{e}")], source=source) from None
        except json.JSONDecodeError as e:
            where = f"line {e.lineno}"
            msg = f"JSON syntax error at line {e.lineno}, column {e.colno}: {e.msg}; fix the JSON"
            raise RubricError([Problem(where, msg)], source=source) from None
        if twice:
            problems = [
                Problem("", f"key {k!r} appears twice in one JSON object; keep one")
                for k in dict.fromkeys(twice)
            ]
            raise RubricError(problems, source=source)
        return data
    if kind != "yaml":
        raise ConfigError(f"unknown text kind {kind!r}; use 'json' or 'yaml'")
    try:
        data = yaml_load(text, source=source)
        duplicates = _yaml_duplicates(yaml.compose(text, Loader=yaml.SafeLoader), "")
    except DataLimitError as e:
        raise RubricError([Problem("", f"{e}")], source=source) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        detail = getattr(e, "problem", None) or str(e).splitlines()[0]
        if mark is not None:
            line, col = mark.line + 1, mark.column + 1
            context, start = getattr(e, "context", None), getattr(e, "context_mark", None)
            if context and start is not None and start.line != mark.line:
                detail = f"{detail} ({context} at line {start.line + 1})"
            msg = f"YAML syntax error at line {line}, column {col}: {detail}; fix the YAML"
            raise RubricError([Problem(f"line {line}", msg)], source=source) from None
        raise RubricError([Problem("", f"YAML syntax error: {detail}")], source=source) from None
    if duplicates:
        raise RubricError(duplicates, source=source)
    return data


def _yaml_duplicates(node: yaml.Node | None, path: str) -> list[Problem]:
    """Keys given twice in one mapping (``safe_load`` would silently keep the last)."""
    out: list[Problem] = []
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key, value in node.value:
            name = str(key.value)
            here = f"{path}.{name}" if path else name
            if name in seen:
                out.append(
                    Problem(
                        here,
                        f"key {name!r} appears twice (lines {seen[name]} and "
                        f"{key.start_mark.line + 1}); keep one",
                    )
                )
            seen.setdefault(name, key.start_mark.line + 1)
            out.extend(_yaml_duplicates(value, here))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out.extend(_yaml_duplicates(item, f"{path}[{i}]"))
    return out


def _json_object(pairs: list[tuple[str, Any]], twice: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            twice.append(key)
        out[key] = value
    return out


def _sniff(text: str) -> TextKind:
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            json.loads(text)
        except json.JSONDecodeError:
            return "yaml"
        return "json"
    return "yaml"


def _kind_for(name: str, text: str) -> TextKind:
    suffix = Path(name).suffix.lower()
    if suffix == ".json":
        return "json"
    if suffix in _YAML_SUFFIXES:
        return "yaml"
    return _sniff(text)


def read_source(source: Any) -> tuple[Any, TextKind, str]:
    """Read and parse a path or a file object; returns (data, kind, source name).

    The kind comes from the extension (``.json``, ``.yaml``, ``.yml``), else from
    the content.
    """
    if hasattr(source, "read"):
        name = str(getattr(source, "name", "") or "<file object>")
        raw = source.read()
        text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
    elif isinstance(source, str | os.PathLike):
        name = os.fspath(source)
        path = Path(name)
        try:
            text = read_text(path)
        except DataLimitError as e:
            raise RubricError([Problem("", f"{e}; rubric files are small")], source=name) from None
        except FileNotFoundError:
            raise RubricError(
                [Problem("", "file not found; check the path")], source=name
            ) from None
        except IsADirectoryError:
            raise RubricError(
                [Problem("", "this is a directory; give a rubric file")], source=name
            ) from None
        except UnicodeDecodeError as e:
            raise RubricError(
                [Problem("", f"not UTF-8 text ({e.reason}); save the file as UTF-8")], source=name
            ) from None
        except OSError as e:
            raise RubricError(
                [Problem("", f"cannot read the file: {e.strerror}")], source=name
            ) from None
    else:
        raise ConfigError(
            f"cannot read a rubric from {type(source).__name__} {source!r}; "
            "give a path or an open file"
        )
    kind = _kind_for(name, text)
    return parse_text(text, kind, name), kind, name


class _Dumper(yaml.SafeDumper):
    """Safe YAML dumper that writes multi-line text as ``|`` blocks."""


_BREAKS = ("\r", "\x85", "\u2028", "\u2029")


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if any(ch in value for ch in _BREAKS):
        style: str | None = '"'  # YAML reads these as line breaks: escape them
    elif "\n" in value:
        style = "|"
    else:
        style = None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def render(data: Any, kind: TextKind, indent: int | None = 2) -> str:
    """Render data as JSON or YAML text (keys in the order given)."""
    if kind == "json":
        return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"
    if kind != "yaml":
        raise ConfigError(f"unknown text kind {kind!r}; use 'json' or 'yaml'")
    text: str = yaml.dump(
        data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100, indent=indent or 2
    )
    return text


def dump_kind(path: str | os.PathLike[str]) -> TextKind:
    """``json`` for a ``.json`` path, else ``yaml``."""
    return "json" if Path(path).suffix.lower() == ".json" else "yaml"


def write_text(path: str | os.PathLike[str], text: str, *, flag: str = "") -> None:
    """Write text to a file as UTF-8, whole or not at all (see ``_outfile``).

    ``flag`` names the command-line flag that gave ``path``, for messages.
    """
    write_output(path, text, flag=flag)
