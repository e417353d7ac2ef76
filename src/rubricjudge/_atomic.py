"""Replace a file's contents so that a crash leaves either the old file or the new one.

The text goes to a temporary file beside the target, is fsynced, keeps the
target's permission bits, and is renamed over it; then the directory is fsynced so
the rename itself survives a power cut. A symlink is kept: the file it points to
is replaced, not the link. A SIGKILL at any moment leaves the target whole (the
old or the new contents) and at worst a stray ``.NAME.*.tmp`` beside it.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

__all__ = ["write_text_atomic"]


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - a directory we may not open (not on Linux)
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` durably: temp file, fsync, rename, fsync dir.

    Raises:
        OSError: the directory cannot be written; ``path`` is then unchanged.
    """
    target = Path(os.path.realpath(path))  # through a symlink, to the file it names
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if mode is None:  # a new file gets what open() would give, not mkstemp's 0600
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(target.parent)
