"""Write a command's output file through a temporary file, renamed on success."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from .._errors import ConfigError

__all__ = ["atomic_output"]


@contextlib.contextmanager
def atomic_output(path: str | None) -> Iterator[IO[str]]:
    """Yield a stream for ``-o PATH`` (stdout when None), put in place only on success.

    What the user had at ``path`` is left as it was when the body raises.

    Raises:
        ConfigError: the directory of ``path`` does not exist.
    """
    if not path:
        yield sys.stdout
        return
    target = Path(path)
    if not target.parent.is_dir():
        raise ConfigError(f"-o {path}: the directory {str(target.parent)!r} does not exist")
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    tmp = Path(name)
    out = os.fdopen(fd, "w", encoding="utf-8")
    ok = False
    try:
        yield out
        ok = True
    finally:
        out.close()
        if ok:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would hide the file from others
            os.replace(tmp, path)
        else:
            tmp.unlink(missing_ok=True)
