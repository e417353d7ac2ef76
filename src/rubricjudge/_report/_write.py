"""Write a report file: to a temporary file beside it, renamed on success."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._conversations._media_source import media_source
from .._conversations._messages import read_messages_with_media
from .._conversations._submission import to_submission
from .._errors import ConfigError, ConversationError, missing_extra
from .._limits import json_loads
from .._metrics._pairwise import read_pairwise_reports
from .._outfile import write_output
from .._pages._media_view import media_view
from ._data import RunData, load_run, submission_of
from ._page import render_page
from ._pairwise_page import render_pairwise_page

__all__ = ["write_report"]


def _conversation(row: dict[str, Any], path: Path, n: int) -> Any:
    """The line's conversation and its images and documents (paths from ``path``'s folder)."""
    try:
        with media_source(path):
            return read_messages_with_media(
                row["messages"], system=row.get("system"), where="messages"
            )
    except ConversationError as e:
        raise ConfigError(f"--submissions {path} line {n}: {e}") from None


def _parts(sub: list[Any], path: Path, n: int) -> Any:
    """A submission of content parts (paths from ``path``'s folder)."""
    try:
        with media_source(path):
            return to_submission(sub, where="submission")
    except ConfigError as e:
        raise ConfigError(f"--submissions {path} line {n}: {e}") from None


def _attach_submissions(run: RunData, path: Path) -> None:
    """Fill a JSONL run's submissions from the grade input file (matched by id)."""
    texts: dict[str, str] = {}
    views: dict[str, Any] = {}
    media: dict[str, Any] = {}
    try:
        with path.open(encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json_loads(line, source=str(path), line=n)
                except ValueError as e:
                    raise ConfigError(
                        f"--submissions {path} line {n}: not JSON ({e}); give the JSONL "
                        "input of `rubricjudge grade`"
                    ) from None
                sub = row.get("submission") if isinstance(row, dict) else None
                key = str(row.get("id", n)) if isinstance(row, dict) else str(n)
                if isinstance(row, dict) and "messages" in row:
                    conversation, parts = _conversation(row, path, n)
                    texts[key], views[key] = submission_of("", conversation)
                    if parts:
                        media[key] = media_view(parts)
                    continue
                if isinstance(sub, list):  # content parts: text, images, documents
                    with_parts = _parts(sub, path, n)
                    texts[key] = with_parts.output
                    if with_parts.media:
                        media[key] = media_view(with_parts.media)
                    continue
                if sub is not None:
                    texts[key] = (
                        sub if isinstance(sub, str) else json.dumps(sub, ensure_ascii=False)
                    )
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"--submissions {path}: cannot read it ({e})") from None
    run.submissions = [texts.get(i, s) for i, s in zip(run.ids, run.submissions, strict=True)]
    old = run.views or [None] * len(run.ids)
    run.views = [views.get(i, v) for i, v in zip(run.ids, old, strict=True)]
    had = run.media or [None] * len(run.ids)
    run.media = [media.get(i, m) for i, m in zip(run.ids, had, strict=True)]


def _is_pairwise(path: Path) -> bool:
    """Whether ``path`` is a JSONL file of ``grade --pairwise`` results (by its first line)."""
    if not path.is_file():
        return False
    try:
        with path.open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    row = json_loads(line)
                    return isinstance(row, dict) and row.get("kind") == "pairwise"
    except (OSError, UnicodeDecodeError, ValueError):
        return False  # load_run says what is wrong with it
    return False


def _check_plotting() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise missing_extra(
            "report", "the HTML report draws its plots with matplotlib, which is not installed"
        ) from None


def _write(out: Path, text: str) -> None:
    if out.is_dir():
        raise ConfigError(f"-o {out} is a directory; give the HTML file to write")
    write_output(out, text, flag="-o")


def write_report(
    source: str | Path,
    output: str | Path,
    *,
    compare: str | Path | None = None,
    submissions: str | Path | None = None,
    include_training: bool = False,
) -> Path:
    """Write the HTML report of a run into ``output`` (one file, no network needed).

    Args:
        source: a run directory of ``rubricjudge evaluate``, or a JSONL file of
            reports written by ``rubricjudge grade -o`` (or ``grade --pairwise -o``:
            a page about the comparisons).
        output: the HTML file to write (through a temporary file and a rename).
        compare: another run (directory or JSONL) to compare with, item by item.
        submissions: for a JSONL source, the ``grade`` input file, so the report
            can show each item's submission.
        include_training: count the items the run's calibration was fitted on in the
            agreement with people (left out by default: they flatter the judge).

    Returns:
        The path written.

    Raises:
        ConfigError: a source that is not a run, an unreadable file, an unwritable
            output, or matplotlib missing (``pip install 'rubricjudge[report]'``).
    """
    if _is_pairwise(Path(source)):
        if compare is not None or submissions is not None:
            raise ConfigError("--compare and --submissions apply to graded runs, not to pairs")
        out = Path(output)
        _write(out, render_pairwise_page(str(source), read_pairwise_reports(source)))
        return out
    _check_plotting()
    run = load_run(source, include_training=include_training)
    if submissions is not None:
        _attach_submissions(run, Path(submissions))
    other = (
        load_run(compare, flag="--compare", include_training=include_training)
        if compare is not None
        else None
    )
    out = Path(output)
    _write(out, render_page(run, other))
    return out
