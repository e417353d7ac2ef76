"""Where the scoring server gets rubrics: one directory, or the rubric registry.

A request names a rubric by id only. For a directory the ids are the stems of the
rubric files directly in it (``.json``, ``.yaml``, ``.yml``; for one stem in
several kinds ``.json`` wins, then ``.yaml``); a request's id is looked up in that
listing and never joined to a path, so no id can reach a file outside the
directory (and files whose real path is outside it, through a symlink, are not
listed). For the registry the ids are the registry's ids.
"""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .._errors import ConfigError, RubricNotFoundError
from .._formats._load import load_file
from .._model._rubric import Rubric

__all__ = [
    "DirectorySource",
    "FileSource",
    "RegistrySource",
    "RubricInfo",
    "RubricNotFoundError",
    "RubricSource",
    "valid_id",
]

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$")
_SUFFIXES = (".json", ".yaml", ".yml")


def valid_id(rubric_id: str) -> bool:
    """True when ``rubric_id`` looks like an id: letters, digits, ``_ . -``, at most 128."""
    return bool(_ID.match(rubric_id)) and ".." not in rubric_id


def id_problem(rubric_id: str) -> str:
    """What is wrong with ``rubric_id``, which :func:`valid_id` refused."""
    shown = repr(rubric_id[:80]) + ("..." if len(rubric_id) > 80 else "")
    return (
        f"{shown} is not a rubric id: an id is a file name without its extension, 1 to 128 "
        "letters, digits, '_', '.' and '-', starting with a letter or digit and without '..' "
        "(so it can never name a path outside the rubrics)"
    )


@dataclass(frozen=True)
class RubricInfo:
    """What the server lists about one rubric."""

    id: str
    name: str | None
    version: str | None
    description: str | None
    criteria: int

    def as_dict(self) -> dict[str, Any]:
        """The info as JSON-ready data."""
        return {
            "id": self.id,
            "name": self.name,
            "version": self.version,
            "description": self.description,
            "criteria": self.criteria,
        }


def _info(rubric_id: str, rubric: Rubric) -> RubricInfo:
    return RubricInfo(
        id=rubric_id,
        name=rubric.name,
        version=rubric.version,
        description=rubric.description,
        criteria=len(rubric.criteria),
    )


class RubricSource(Protocol):
    """Lists rubrics and loads one by id."""

    description: str  # for the operator's log: may name a path on the server
    kind: str  # for anyone (``/health``): "directory", "file" or "registry"

    async def list(self) -> list[RubricInfo]:
        """Every rubric available."""
        ...

    async def get(self, rubric_id: str, version: str | None = None) -> tuple[Rubric, str | None]:
        """The rubric with this id (and version), and its version; RubricNotFoundError if none."""
        ...


class DirectorySource:
    """Rubric files directly inside one directory, by file stem."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        path = Path(directory).expanduser()
        if not path.is_dir():
            raise ConfigError(f"--rubrics-dir {os.fspath(directory)!r} is not a directory")
        self.root = path.resolve()
        self.description = f"directory {self.root}"
        self.kind = "directory"
        self._cache: dict[Path, tuple[tuple[int, int], Rubric]] = {}

    def files(self) -> dict[str, Path]:
        """Map each rubric id to its file (scanned now)."""
        found: dict[str, Path] = {}
        entries = sorted(self.root.iterdir())
        for suffix in _SUFFIXES:
            for entry in entries:
                if entry.suffix != suffix or not valid_id(entry.stem) or entry.stem in found:
                    continue
                real = entry.resolve()
                if real.parent != self.root or not real.is_file():
                    continue  # a symlink leading out of the directory, or not a file
                found[entry.stem] = real
        return found

    def _load(self, path: Path) -> Rubric:
        st = path.stat()
        key = (st.st_mtime_ns, st.st_size)
        cached = self._cache.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        rubric = load_file(path)
        self._cache[path] = (key, rubric)
        return rubric

    def _get(self, rubric_id: str, version: str | None) -> tuple[Rubric, str | None]:
        if not valid_id(rubric_id):
            raise RubricNotFoundError(id_problem(rubric_id))
        files = self.files()
        path = files.get(rubric_id)
        if path is None:
            known = ", ".join(sorted(files)[:20]) or "none"
            raise RubricNotFoundError(
                f"no rubric {rubric_id!r} in the rubrics directory (known: {known})"
            )
        rubric = self._load(path)
        if version is not None and rubric.version != version:
            raise RubricNotFoundError(
                f"rubric {rubric_id!r} has version {rubric.version!r}, not {version!r}"
            )
        return rubric, rubric.version

    def _list(self) -> list[RubricInfo]:
        out = []
        for rubric_id, path in sorted(self.files().items()):
            try:
                out.append(_info(rubric_id, self._load(path)))
            except Exception:  # an invalid file is left out of the listing, not fatal
                continue
        return out

    async def list(self) -> list[RubricInfo]:
        """Every valid rubric file in the directory."""
        return await asyncio.to_thread(self._list)

    async def get(self, rubric_id: str, version: str | None = None) -> tuple[Rubric, str | None]:
        """Load the rubric file whose stem is ``rubric_id``."""
        return await asyncio.to_thread(self._get, rubric_id, version)


class FileSource(DirectorySource):
    """One rubric file (``serve --rubric FILE``), by its file stem."""

    def __init__(self, file: str | os.PathLike[str]) -> None:
        path = Path(file).expanduser()
        if not path.is_file():
            raise ConfigError(f"--rubric {os.fspath(file)!r} is not a file")
        if path.suffix not in _SUFFIXES:
            raise ConfigError(
                f"--rubric {os.fspath(file)!r} is not a rubric file (.json, .yaml or .yml)"
            )
        if not valid_id(path.stem):
            raise ConfigError(
                f"--rubric {os.fspath(file)!r}: its name {path.stem!r} is the rubric's id, so it "
                "may hold only letters, digits, '_', '.' and '-' (rename the file)"
            )
        self.path = path.resolve()
        self.rubric_id = path.stem
        self.root = self.path.parent
        self.description = f"rubric file {self.path}"
        self.kind = "file"
        self._cache = {}

        load_file(self.path)  # a broken rubric stops the server before it starts

    def files(self) -> dict[str, Path]:
        """The one rubric: its id and file."""
        return {self.rubric_id: self.path}


class RegistrySource:
    """Rubrics from a :class:`~rubricjudge._registry._store.RubricRegistry`, latest or given."""

    def __init__(self, url: str) -> None:
        # deferred: cmd_serve loads this module for --help; the registry loads on use
        from .._registry._store import RubricRegistry

        self.registry = RubricRegistry(url)
        self.description = "registry"
        self.kind = "registry"

    def _list(self) -> list[RubricInfo]:
        return [_info(v.rubric_id, v.rubric) for v in self.registry.list_all()]

    def _get(self, rubric_id: str, version: str | None) -> tuple[Rubric, str | None]:
        # deferred: see __init__
        from .._registry._records import RubricNotFound

        if not valid_id(rubric_id):
            raise RubricNotFoundError(id_problem(rubric_id))
        try:
            record = self.registry.get_version(rubric_id, version)
        except RubricNotFound as e:
            raise RubricNotFoundError(str(e)) from None
        return record.rubric, record.version

    async def list(self) -> list[RubricInfo]:
        """The latest version of every registered rubric."""
        return await asyncio.to_thread(self._list)

    async def get(self, rubric_id: str, version: str | None = None) -> tuple[Rubric, str | None]:
        """The latest (or the given) version of a registered rubric."""
        return await asyncio.to_thread(self._get, rubric_id, version)
