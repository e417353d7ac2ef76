"""Writing an output file so that nothing the user had is lost.

Every file rubricjudge writes at a path the user gave (``-o``, a calibration, a
converted rubric) goes through :class:`OutputFile`:

* a regular file (or a path not there yet) is written to a temporary file beside
  it and renamed over it only on :meth:`OutputFile.commit`; leaving the block
  without committing keeps what the path held;
* a symlink is resolved first, so the file it points to is replaced and the link
  stays a link;
* the mode of the file replaced is kept (a 0600 file stays 0600; a new file gets
  0666 minus the umask, as ``open`` would give it), and as root its owner too;
* a FIFO, a character device or a pipe (``/dev/stdout``, ``-o >(cmd)``) cannot be
  replaced: it is written directly, as the data comes;
* each temporary file holds an exclusive ``flock`` while it is written. One left
  by a killed run (SIGKILL runs no clean-up) is unlocked, so the next write to
  the same path removes it; one being written by a live process is left alone.
"""

from __future__ import annotations

import glob
import os
import stat
import tempfile
from pathlib import Path
from types import TracebackType
from typing import IO

from ._errors import ConfigError

__all__ = ["OutputFile", "write_output"]

_SUFFIX = ".partial"


def _lock(fd: int) -> bool:
    """Take the exclusive lock of ``fd`` without waiting; False when another holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no clean-up of stale files
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _remove_stale(target: Path) -> None:
    """Remove the temporary files of ``target`` whose writer is gone."""
    pattern = os.path.join(glob.escape(str(target.parent)), f".{glob.escape(target.name)}.*")
    for name in glob.glob(pattern + _SUFFIX):
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode) and _lock(fd):
                os.unlink(name)
        except OSError:
            pass
        finally:
            os.close(fd)


class OutputFile:
    """A text file written whole or not at all (a context manager).

    ``flag`` names where the path came from (``-o``, ``--output``) in messages;
    leave it empty for a path given in Python.
    Write to :attr:`stream`, then call :meth:`commit`; without it the target keeps
    what it held (except a FIFO or device, which was written as the data came).

    Raises:
        ConfigError: the directory does not exist, the path is a directory, or it
            cannot be written there.
    """

    def __init__(self, path: str | os.PathLike[str], *, flag: str = "") -> None:
        self.path = Path(path)
        self.flag = flag
        self._tmp: Path | None = None
        self._mode: int | None = None
        self._owner: tuple[int, int] | None = None
        self._target = self.path
        self.streaming = False
        self.stream: IO[str] = self._open()

    def _error(self, why: str) -> ConfigError:
        where = f"{self.flag} {self.path}" if self.flag else str(self.path)
        return ConfigError(f"{where}: {why}")

    def _open(self) -> IO[str]:
        try:
            st: os.stat_result | None = os.stat(self.path)  # follows symlinks
        except FileNotFoundError:
            st = None
        except OSError as e:
            raise self._error(f"cannot write there ({e.strerror})") from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise self._error("is a directory; give a file to write")
        if st is not None and not stat.S_ISREG(st.st_mode):
            # a FIFO, pipe or device: it cannot be replaced, only written to
            self.streaming = True
            try:
                return open(self.path, "w", encoding="utf-8")  # noqa: SIM115
            except OSError as e:
                raise self._error(f"cannot write there ({e.strerror})") from None
        # the file a symlink (or a chain of them) points to is the one replaced
        target = Path(os.path.realpath(self.path))
        if not target.parent.is_dir():
            raise self._error(f"the directory {str(target.parent)!r} does not exist")
        if st is not None:
            self._mode = stat.S_IMODE(st.st_mode)
            self._owner = (st.st_uid, st.st_gid)
        self._target = target
        _remove_stale(target)
        try:
            fd, name = tempfile.mkstemp(
                prefix=f".{target.name}.", suffix=_SUFFIX, dir=target.parent
            )
        except OSError as e:
            raise self._error(f"cannot write there ({e.strerror})") from None
        _lock(fd)  # held until the file is closed: a live writer's file is not stale
        self._tmp = Path(name)
        return os.fdopen(fd, "w", encoding="utf-8")

    def commit(self) -> Path:
        """Close the file and put it in place of the target; returns the path written."""
        self.stream.close()
        if self._tmp is None:
            return self.path
        tmp, self._tmp = self._tmp, None
        try:
            if self._mode is None:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would hide it from others
            else:
                os.chmod(tmp, self._mode)
                if self._owner is not None and os.geteuid() == 0:
                    os.chown(tmp, *self._owner)
            os.replace(tmp, self._target)
        except OSError as e:
            tmp.unlink(missing_ok=True)
            raise self._error(f"cannot write there ({e.strerror})") from None
        return self._target

    def discard(self) -> None:
        """Close the file and drop what was written; the target keeps what it held."""
        if not self.stream.closed:
            try:
                self.stream.close()
            except OSError:  # a closed pipe: nothing more can be done about it
                pass
        if self._tmp is not None:
            self._tmp.unlink(missing_ok=True)
            self._tmp = None

    def __enter__(self) -> OutputFile:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.discard()  # a no-op after commit


def write_output(path: str | os.PathLike[str], text: str, *, flag: str = "") -> Path:
    """Write ``text`` to ``path`` whole or not at all (see :class:`OutputFile`)."""
    with OutputFile(path, flag=flag) as out:
        out.stream.write(text)
        return out.commit()
