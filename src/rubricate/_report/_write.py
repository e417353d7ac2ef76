"""Write a report file: to a temporary file beside it, renamed on success."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from .._errors import ConfigError
from ._data import load_run
from ._page import render_page

__all__ = ["write_report"]


def _attach_submissions(run: object, path: str) -> None:
    """Fill a JSONL run's submissions from the grade input file (matched by id)."""
    texts: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as e:
                raise ConfigError(f"--submissions {path} line {n}: not JSON ({e})") from None
            sub = row.get("submission") if isinstance(row, dict) else None
            key = str(row.get("id", n)) if isinstance(row, dict) else str(n)
            if sub is not None:
                texts[key] = sub if isinstance(sub, str) else json.dumps(sub, ensure_ascii=False)
    run.submissions = [texts.get(i, s) for i, s in zip(run.ids, run.submissions, strict=True)]  # type: ignore[attr-defined]


def write_report(
    source: str | Path,
    output: str | Path,
    *,
    compare: str | Path | None = None,
    submissions: str | Path | None = None,
) -> Path:
    """Render the report of ``source`` (and ``compare``) into ``output``.

    Raises:
        ConfigError: a source that is not a run, or an unwritable output.
    """
    try:
        import matplotlib  # noqa: F401
    except ModuleNotFoundError:
        raise ConfigError(
            "the HTML report draws its plots with matplotlib; install it: "
            "pip install 'rubricate[report]'"
        ) from None
    run = load_run(source)
    if submissions is not None:
        _attach_submissions(run, str(submissions))
    other = load_run(compare) if compare is not None else None
    page = render_page(run, other)
    out = Path(output)
    if not out.parent.is_dir():
        raise ConfigError(f"-o {output}: the directory {str(out.parent)!r} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(page)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would hide the report from others
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out
