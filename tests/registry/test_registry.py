"""The versioned rubric registry: the same suite on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from rubricjudge import ConfigError, Criterion, CriterionOption, Rubric
from rubricjudge._cli.main import main
from rubricjudge._registry._migrations import MIGRATIONS
from rubricjudge._registry._open import open_database
from rubricjudge._registry._records import (
    RubricNotFound,
    VersionConflict,
    canonical_json,
    content_hash,
)
from rubricjudge._registry._store import RubricRegistry
from tests.support.registry_backends import BACKENDS, database_url


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from database_url(request.param, tmp_path)


@pytest.fixture
def registry(db_url: str) -> RubricRegistry:
    return RubricRegistry(db_url)


def make(rid: str = "quality", version: str | None = "1.0.0", **kw: object) -> Rubric:
    levels = [
        CriterionOption(id="fail", label="Fail", value=0.0),
        CriterionOption(id="pass", label="Pass", value=1.0),
    ]
    fields: dict[str, object] = {"target_type": "content", "pass_threshold": 0.7}
    fields.update(kw)
    return Rubric(
        [
            Criterion(
                id="clarity",
                name="Clarity",
                requirement="States the main claim first",
                weight=1.0,
                options=levels,
            )
        ],
        id=rid,
        name=rid.title(),
        version=version,
        **fields,
    )


def test_register_get_and_content_hash(registry: RubricRegistry) -> None:
    rubric = make()
    rec = registry.register(rubric)
    assert (rec.rubric_id, rec.version, rec.is_latest) == ("quality", "1.0.0", True)
    # the hash is over the canonical native JSON, recomputable from the stored rubric
    assert rec.content_hash == content_hash(rubric)
    native = rubric.to_dict()
    assert rec.content_hash == hashlib.sha256(canonical_json(native).encode()).hexdigest()
    got = registry.get("quality")
    assert got == rubric
    assert registry.get_version("quality").content_hash == rec.content_hash


def test_versions_only_go_up(registry: RubricRegistry) -> None:
    registry.register(make())
    with pytest.raises(VersionConflict, match="registered already"):
        registry.register(make(version="2.0.0"))
    registry.update(make(version="1.2.0", pass_threshold=0.8))
    for bad in ("1.2.0", "1.1.9", "0.9.0"):
        with pytest.raises(VersionConflict, match="not greater"):
            registry.update(make(version=bad))
    assert registry.get("quality").pass_threshold == 0.8
    assert registry.get("quality", "1.0.0").pass_threshold == 0.7
    assert [v.version for v in registry.history("quality")] == ["1.0.0", "1.2.0"]
    with pytest.raises(RubricNotFound, match="no version '1.1.0'.*1.0.0, 1.2.0"):
        registry.get("quality", "1.1.0")


def test_bump_and_missing_ids(registry: RubricRegistry) -> None:
    registry.register(make(version=None))
    assert registry.get("quality").version == "1.0.0"
    assert registry.update(make(), bump="minor").version == "1.1.0"
    assert registry.update(make(), bump="patch").version == "1.1.1"
    assert registry.update(make(), bump="major").version == "2.0.0"
    with pytest.raises(RubricNotFound, match="did you mean 'quality'"):
        registry.get("qualty")
    with pytest.raises(RubricNotFound, match="not registered"):
        registry.update(make("other"))
    with pytest.raises(ConfigError, match="has no id"):
        registry.register(Rubric([Criterion(requirement="Says hello politely")]))


def test_delete_keeps_history(registry: RubricRegistry) -> None:
    registry.register(make())
    registry.update(make(version="1.1.0"))
    registry.delete("quality")
    with pytest.raises(RubricNotFound, match="was deleted"):
        registry.get("quality")
    assert registry.list_all() == []
    history = registry.history("quality")
    assert [(v.version, v.is_latest) for v in history] == [("1.0.0", False), ("1.1.0", False)]
    assert registry.get("quality", "1.0.0").version == "1.0.0"  # audit access stays
    with pytest.raises(RubricNotFound):
        registry.delete("quality")
    with pytest.raises(VersionConflict, match="exists in its history"):
        registry.register(make(version="1.1.0"))
    registry.register(make(version="2.0.0"))
    assert registry.get("quality").version == "2.0.0"


def test_list_for_target_type_with_metadata(registry: RubricRegistry) -> None:
    registry.register(make("a", metadata={"domain": "math", "level": 1}))
    registry.register(make("b", metadata={"domain": "bio"}))
    registry.register(make("c", target_type="code", metadata={"domain": "math"}))
    registry.update(make("a", version="1.1.0", metadata={"domain": "math", "level": 2}))
    assert [(r.rubric_id, r.version) for r in registry.list_all()] == [
        ("a", "1.1.0"),
        ("b", "1.0.0"),
        ("c", "1.0.0"),
    ]
    assert [r.rubric_id for r in registry.list_all("content")] == ["a", "b"]
    assert [r.rubric_id for r in registry.list_all(metadata={"domain": "math"})] == ["a", "c"]
    assert [r.id for r in registry.get_for_target("content", metadata={"level": 2})] == ["a"]
    assert registry.get_for_target("content", metadata={"level": 1}) == []


def test_migrations_are_recorded_once(db_url: str) -> None:
    db = open_database(db_url)
    assert db.migrate() == []  # already applied when opened
    names = db.run(lambda tx: tx.execute("SELECT name FROM _migrations ORDER BY name"))
    assert [n for (n,) in names] == [name for name, _ in MIGRATIONS]


def test_concurrent_writers_never_lose_a_version(registry: RubricRegistry, db_url: str) -> None:
    registry.register(make())
    threads, per_thread = 6, 4
    errors: list[BaseException] = []
    barrier = threading.Barrier(threads)

    def work(i: int) -> None:
        own = RubricRegistry(db_url)
        try:
            barrier.wait(timeout=30)
            own.register(make(f"t{i}"))
            for _ in range(per_thread):
                own.update(make(), bump="patch")
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert errors == []
    versions = [v.version for v in registry.history("quality")]
    assert versions == [f"1.0.{n}" for n in range(threads * per_thread + 1)]
    assert registry.get("quality").version == f"1.0.{threads * per_thread}"
    assert len(registry.list_all()) == threads + 1


def test_concurrent_same_version_one_wins(registry: RubricRegistry, db_url: str) -> None:
    registry.register(make())
    outcomes: list[str] = []
    barrier = threading.Barrier(5)

    def work() -> None:
        own = RubricRegistry(db_url)
        barrier.wait(timeout=30)
        try:
            own.update(make(version="1.1.0"))
            outcomes.append("ok")
        except VersionConflict:
            outcomes.append("conflict")

    workers = [threading.Thread(target=work) for _ in range(5)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert sorted(outcomes) == ["conflict"] * 4 + ["ok"]
    assert [v.version for v in registry.history("quality")] == ["1.0.0", "1.1.0"]


_WORKER = """
import sys
from rubricjudge import Criterion, Rubric
from rubricjudge._registry._store import RubricRegistry
reg = RubricRegistry(sys.argv[1])
r = Rubric([Criterion(requirement="States the main claim first")], id="shared", version="1.0.0")
for _ in range(int(sys.argv[2])):
    reg.update(r, bump="patch")
"""


def test_concurrent_processes(registry: RubricRegistry, db_url: str) -> None:
    registry.register(
        Rubric([Criterion(requirement="States the main claim first")], id="shared", version="1.0.0")
    )
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, db_url, "5"]) for _ in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    assert [v.version for v in registry.history("shared")] == [f"1.0.{n}" for n in range(16)]


def test_env_var_sets_the_default_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "nested" / "reg.sqlite3"
    monkeypatch.setenv("RUBRICJUDGE_REGISTRY", f"sqlite:///{path}")
    RubricRegistry().register(make())
    assert path.exists()
    assert RubricRegistry(str(path)).get("quality").id == "quality"
    with pytest.raises(ConfigError, match="unknown scheme 'mysql'"):
        RubricRegistry("mysql://x/y")


def test_cli(db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "r.json"
    f.write_text(make().to_json(), encoding="utf-8")
    assert main(["registry", "add", str(f), "--db", db_url]) == 0
    assert main(["registry", "add", str(f), "--db", db_url]) == 0
    assert "unchanged quality 1.0.0" in capsys.readouterr().out
    f.write_text(make(version="1.0.1", pass_threshold=0.5).to_json(), encoding="utf-8")
    assert main(["registry", "add", str(f), "--db", db_url]) == 0
    assert "updated quality 1.0.1 sha256:" in capsys.readouterr().out
    assert main(["registry", "get", "quality", "--version", "1.0.0", "--db", db_url]) == 0
    assert json.loads(capsys.readouterr().out)["pass_threshold"] == 0.7
    assert main(["registry", "list", "--target-type", "content", "--json", "--db", db_url]) == 0
    assert [r["version"] for r in json.loads(capsys.readouterr().out)] == ["1.0.1"]
    assert main(["registry", "delete", "quality", "--db", db_url]) == 0
    assert "deleted quality" in capsys.readouterr().out
    assert main(["registry", "history", "quality", "--json", "--db", db_url]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["version"], r["latest"]) for r in rows] == [("1.0.0", False), ("1.0.1", False)]
    assert main(["registry", "get", "quality", "--db", db_url]) == 1
    assert "was deleted" in capsys.readouterr().err
