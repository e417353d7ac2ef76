"""The versioned rubric registry.

Every version of a rubric is kept with the SHA-256 of its canonical native JSON
(the native format's data, keys sorted, no whitespace). ``rubrics`` holds one
row per id with a pointer to the latest version; ``delete`` clears the pointer
and keeps every version for audit.

Versions are semver and only go up: ``update`` refuses a version that exists or
is not greater than the latest. Writers lock the id's row for the whole
transaction, so concurrent writers are serialised and never lose a version;
``update(rubric, bump="patch")`` picks the next version inside that lock, so
any number of concurrent bumps all land, each with its own version.
"""

from __future__ import annotations

import difflib
import hashlib
import os
from collections.abc import Mapping
from typing import Any

from .._errors import ConfigError
from .._formats._load import load_rubrics
from .._model._rubric import Rubric
from ._db import Database, Tx
from ._open import open_database
from ._records import (
    _COLUMNS,
    _FROM,
    Bump,
    RubricNotFound,
    RubricVersion,
    VersionConflict,
    _bumped,
    _now,
    _record,
    _semver,
    canonical_json,
    native_data,
)

__all__ = ["RubricRegistry"]


class RubricRegistry:
    """Versioned rubric storage on SQLite (default) or PostgreSQL.

    Args:
        db: a :class:`Database`, a database URL or path; default ``$RUBRICJUDGE_REGISTRY``
            or ``~/.local/share/rubricjudge/registry.sqlite3``.
    """

    def __init__(self, db: Database | str | os.PathLike[str] | None = None) -> None:
        self.db = db if isinstance(db, Database) else open_database(db)

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any], db: Database | str | os.PathLike[str] | None = None
    ) -> RubricRegistry:
        """Return a registry with every rubric of a ``{"rubrics": [...]}`` config registered."""
        registry = cls(db)
        for rubric in load_rubrics(dict(config)):
            registry.register(rubric)
        return registry

    # -- writing -------------------------------------------------------------------
    def _write(self, tx: Tx, rubric: Rubric, version: str, action: str) -> RubricVersion:
        stored = (
            rubric if rubric.version == version else rubric.model_copy(update={"version": version})
        )
        content = canonical_json(native_data(stored))
        digest = hashlib.sha256(content.encode("utf-8")).hexdigest()
        now = _now()
        major, minor, patch = _semver(version)
        meta = canonical_json(stored.metadata)
        tx.execute(
            "INSERT INTO rubric_versions (rubric_id, version, major, minor, patch, target_type, "
            "name, content, content_hash, metadata, action, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                stored.id,
                version,
                major,
                minor,
                patch,
                stored.target_type,
                stored.name,
                content,
                digest,
                meta,
                action,
                now,
            ),
        )
        tx.execute(
            "UPDATE rubrics SET latest_version = ?, target_type = ?, name = ?, updated_at = ?, "
            "deleted_at = NULL WHERE id = ?",
            (version, stored.target_type, stored.name, now, stored.id),
        )
        return RubricVersion(
            rubric_id=str(stored.id),
            version=version,
            content_hash=digest,
            target_type=stored.target_type,
            name=stored.name,
            action=action,
            created_at=now,
            is_latest=True,
            metadata=dict(stored.metadata),
            content=content,
        )

    @staticmethod
    def _id(rubric: Rubric) -> str:
        if not rubric.id:
            raise ConfigError(
                f"rubric {rubric.name or '(unnamed)'!r} has no id; the registry stores rubrics "
                "by id: add `id:` to the rubric file (Rubric(id=...) in Python)"
            )
        return rubric.id

    def _versions(self, tx: Tx, rubric_id: str) -> list[tuple[int, int, int]]:
        rows = tx.execute(
            "SELECT major, minor, patch FROM rubric_versions WHERE rubric_id = ?", (rubric_id,)
        )
        return sorted((int(a), int(b), int(c)) for a, b, c in rows)

    def register(self, rubric: Rubric) -> RubricVersion:
        """Store a new rubric (version ``1.0.0`` when it has none).

        A deleted id may be registered again with a version it never had.

        Raises:
            VersionConflict: the id is registered already (use :meth:`update`), or the
                version exists in its history.
        """
        rubric_id = self._id(rubric)
        version = rubric.version or "1.0.0"

        def tx_fn(tx: Tx) -> RubricVersion:
            rows = tx.execute(
                f"SELECT latest_version FROM rubrics WHERE id = ?{tx.for_update}", (rubric_id,)
            )
            if rows and rows[0][0] is not None:
                raise VersionConflict(
                    f"rubric {rubric_id!r} is registered already (latest {rows[0][0]}); "
                    "use update() / 'rubricjudge registry add' with a greater version"
                )
            if not rows:
                now = _now()
                tx.execute(
                    "INSERT INTO rubrics (id, latest_version, target_type, name, created_at, "
                    "updated_at) VALUES (?, NULL, ?, ?, ?, ?)",
                    (rubric_id, rubric.target_type, rubric.name, now, now),
                )
            elif _semver(version) in self._versions(tx, rubric_id):
                raise VersionConflict(
                    f"rubric {rubric_id!r} version {version} exists in its history; "
                    "register it with a new version"
                )
            return self._write(tx, rubric, version, "register")

        return self.db.run(tx_fn)

    def update(self, rubric: Rubric, *, bump: Bump | None = None) -> RubricVersion:
        """Store a new version of a registered rubric.

        Args:
            rubric: the new content; its ``version`` must be greater than every
                stored version (unless ``bump`` is given).
            bump: ``"major"``, ``"minor"`` or ``"patch"``: ignore ``rubric.version``
                and store the latest version bumped so, decided inside the lock.

        Raises:
            RubricNotFound: the id is not registered (or was deleted).
            VersionConflict: the version exists or is not greater than the latest.
        """
        rubric_id = self._id(rubric)
        if bump is not None and bump not in ("major", "minor", "patch"):
            raise ConfigError(f"bump {bump!r} is not 'major', 'minor' or 'patch'")
        if bump is None and rubric.version is None:
            raise ConfigError(f"rubric {rubric_id!r} has no version; set one or pass bump='patch'")

        def tx_fn(tx: Tx) -> RubricVersion:
            rows = tx.execute(
                f"SELECT latest_version FROM rubrics WHERE id = ?{tx.for_update}", (rubric_id,)
            )
            if not rows or rows[0][0] is None:
                raise RubricNotFound(f"rubric {rubric_id!r} is not registered; use register()")
            top = self._versions(tx, rubric_id)[-1]
            if bump is not None:
                version = _bumped(top, bump)
            else:
                version = str(rubric.version)
                if _semver(version) <= top:
                    raise VersionConflict(
                        f"rubric {rubric_id!r}: version {version} is not greater than the "
                        f"latest stored version {'.'.join(map(str, top))}; bump the version"
                    )
            return self._write(tx, rubric, version, "update")

        return self.db.run(tx_fn)

    def delete(self, rubric_id: str) -> None:
        """Remove the latest pointer; every version stays in the history.

        Raises:
            RubricNotFound: the id is not registered (or already deleted).
        """

        def tx_fn(tx: Tx) -> None:
            tx.execute(
                "UPDATE rubrics SET latest_version = NULL, deleted_at = ?, updated_at = ? "
                "WHERE id = ? AND latest_version IS NOT NULL",
                (_now(), _now(), rubric_id),
            )
            if tx.rowcount != 1:
                raise RubricNotFound(self._missing(tx, rubric_id))

        self.db.run(tx_fn)

    # -- reading -------------------------------------------------------------------
    def _missing(self, tx: Tx, rubric_id: str) -> str:
        rows = tx.execute("SELECT deleted_at FROM rubrics WHERE id = ?", (rubric_id,))
        if rows:
            return (
                f"rubric {rubric_id!r} was deleted at {rows[0][0]}; its versions remain "
                f"(see history), get one with version=..."
            )
        known = [
            r[0]
            for r in tx.execute(
                "SELECT id FROM rubrics WHERE latest_version IS NOT NULL ORDER BY id"
            )
        ]
        near = difflib.get_close_matches(rubric_id, known, n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        return f"no rubric {rubric_id!r} in the registry ({len(known)} registered){hint}"

    def get_version(self, rubric_id: str, version: str | None = None) -> RubricVersion:
        """Return the stored record of the latest (or the given) version.

        Raises:
            RubricNotFound: no such id, or no such version of it.
        """

        def tx_fn(tx: Tx) -> RubricVersion:
            if version is None:
                rows = tx.execute(
                    f"SELECT {_COLUMNS} {_FROM} WHERE v.rubric_id = ? "
                    "AND v.version = r.latest_version",
                    (rubric_id,),
                )
                if not rows:
                    raise RubricNotFound(self._missing(tx, rubric_id))
            else:
                rows = tx.execute(
                    f"SELECT {_COLUMNS} {_FROM} WHERE v.rubric_id = ? AND v.version = ?",
                    (rubric_id, version),
                )
                if not rows:
                    have = [".".join(map(str, v)) for v in self._versions(tx, rubric_id)]
                    if not have:
                        raise RubricNotFound(self._missing(tx, rubric_id))
                    raise RubricNotFound(
                        f"rubric {rubric_id!r} has no version {version!r}; "
                        f"versions: {', '.join(have)}"
                    )
            return _record(rows[0])

        return self.db.run(tx_fn, write=False)

    def get(self, rubric_id: str, version: str | None = None) -> Rubric:
        """Return the latest (or the given) version of a rubric."""
        return self.get_version(rubric_id, version).rubric

    def history(self, rubric_id: str) -> list[RubricVersion]:
        """Every stored version of a rubric, oldest version first (also after delete)."""

        def tx_fn(tx: Tx) -> list[RubricVersion]:
            rows = tx.execute(
                f"SELECT {_COLUMNS} {_FROM} WHERE v.rubric_id = ? "
                "ORDER BY v.major, v.minor, v.patch",
                (rubric_id,),
            )
            if not rows:
                raise RubricNotFound(self._missing(tx, rubric_id))
            return [_record(r) for r in rows]

        return self.db.run(tx_fn, write=False)

    def list_all(
        self, target_type: str | None = None, *, metadata: Mapping[str, Any] | None = None
    ) -> list[RubricVersion]:
        """Return the latest version of every registered rubric, by id.

        Args:
            target_type: only rubrics for this target type.
            metadata: only rubrics whose metadata has each of these key/value pairs.
        """
        where = "v.version = r.latest_version"
        params: tuple[Any, ...] = ()
        if target_type is not None:
            where += " AND v.target_type = ?"
            params = (target_type,)

        def tx_fn(tx: Tx) -> list[RubricVersion]:
            rows = tx.execute(
                f"SELECT {_COLUMNS} {_FROM} WHERE {where} ORDER BY v.rubric_id", params
            )
            return [_record(r) for r in rows]

        records = self.db.run(tx_fn, write=False)
        want = dict(metadata or {})
        return [
            r
            for r in records
            if all(k in r.metadata and r.metadata[k] == v for k, v in want.items())
        ]

    def get_for_target(
        self, target_type: str, *, metadata: Mapping[str, Any] | None = None
    ) -> list[Rubric]:
        """Return the latest rubrics for ``target_type`` (dataknobs' name)."""
        return [r.rubric for r in self.list_all(target_type, metadata=metadata)]
