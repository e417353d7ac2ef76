"""One process per run directory: an exclusive lock held for the whole run.

Two processes resuming one run directory at once would both judge the items neither
had finished (the probe saw 765 of 2,007 prompts judged twice), and two starting
together raced on the same temporary files. ``evaluate`` takes an exclusive
``flock`` on ``RUN_DIR/.lock`` before it touches anything and holds it until it
returns; a second process is refused at once with the holder's pid. The lock is the
kernel's: it goes when the process ends, SIGKILL included, so no stale lock is left.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

from .._errors import UsageError

__all__ = ["RunLock"]


class RunLock:
    """The exclusive lock of one run directory (a context manager)."""

    def __init__(self, run_dir: str | Path) -> None:
        self.path = Path(run_dir) / ".lock"
        self._file: IO[str] | None = None

    def __enter__(self) -> RunLock:
        import fcntl  # POSIX only: a run without a run directory needs no lock, anywhere

        self.path.parent.mkdir(parents=True, exist_ok=True)
        f = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            holder = f.read().strip() or "unknown"
            f.close()
            raise UsageError(
                f"run directory {str(self.path.parent)!r} is in use by another rubricjudge "
                f"process (pid {holder}); wait for it to finish, or give another --run-dir"
            ) from None
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        self._file = f
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()  # closing releases the lock
            self._file = None
