"""Settings from the environment and the user's directories, under the old name too.

The project was called ``rubricate``: its ``RUBRICATE_*`` variables are still read
(with a one-line note on stderr, once per variable) when the ``RUBRICJUDGE_*`` one
is not set, and its cache and data directories are used where they already exist
and the new ones do not, so an upgrade finds the model, the response cache and the
registry where they were.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["cache_home", "data_home", "getenv"]

PREFIX = "RUBRICJUDGE_"
OLD_PREFIX = "RUBRICATE_"
NAME, OLD_NAME = "rubricjudge", "rubricate"
_noted: set[str] = set()


def getenv(name: str) -> str | None:
    """``$RUBRICJUDGE_<name>``, else ``$RUBRICATE_<name>`` (noted once), else None."""
    value = os.environ.get(PREFIX + name)
    if value is not None:
        return value
    old = os.environ.get(OLD_PREFIX + name)
    if old is not None and name not in _noted:
        _noted.add(name)
        print(
            f"note: ${OLD_PREFIX}{name} is read as ${PREFIX}{name}; rename it "
            "(the old name will stop working in a later release)",
            file=sys.stderr,
        )
    return old


def _home(new: Path, old: Path) -> Path:
    return old if not new.exists() and old.exists() else new


def cache_home() -> Path:
    """The cache directory: models and the response cache live under it.

    ``$RUBRICJUDGE_CACHE_DIR``, else ``~/.cache/rubricjudge`` (or an existing
    ``~/.cache/rubricate`` when the new one does not exist yet).
    """
    root = getenv("CACHE_DIR")
    if root:
        return Path(root).expanduser()
    base = Path.home() / ".cache"
    return _home(base / NAME, base / OLD_NAME)


def data_home() -> Path:
    """``~/.local/share/rubricjudge`` (or an existing ``~/.local/share/rubricate``)."""
    base = Path.home() / ".local" / "share"
    return _home(base / NAME, base / OLD_NAME)
