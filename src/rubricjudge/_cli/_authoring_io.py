"""What ``draft`` and ``refine`` share: the judge flags, reading text inputs, writing a rubric."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._limits import read_text
from .._model._rubric import Rubric
from .._outfile import write_output
from ._trust_args import BASE_URL_HELP, base_url_option

__all__ = [
    "add_judge_args",
    "check_new_path",
    "judge_from_args",
    "read_text_arg",
    "rubric_text",
    "write_new_rubric",
]


def add_judge_args(parser: argparse.ArgumentParser) -> None:
    """Add ``--judge`` and ``--base-url``: the judge that drafts or rewrites criteria."""
    parser.add_argument("--judge", default="local", help="judge spec (default: local)")
    parser.add_argument("--base-url", metavar="URL[,URL...]", help=BASE_URL_HELP)


def judge_from_args(args: argparse.Namespace) -> Any:
    """The judge ``--judge`` names, seeded with ``--seed``, at ``--base-url`` if given."""
    # deferred: this module loads for `rubricjudge --help`; the judge registry on use
    from .._judges._registry import get_judge

    options: dict[str, Any] = {"seed": args.seed}
    if args.base_url:
        options["base_url"] = base_url_option(args.base_url)
    return get_judge(args.judge, **options)


def read_text_arg(path: str, flag: str) -> str:
    """The text of the file ``path`` given with ``flag``.

    Raises:
        ConfigError: naming the flag and the file, when it cannot be read.
    """
    try:
        return read_text(path)
    except OSError as e:
        raise ConfigError(f"{flag} {path}: cannot read it ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{flag} {path}: not UTF-8 text ({e.reason})") from None
    except ValueError as e:  # larger than rubricjudge reads
        raise ConfigError(f"{flag} {path}: {e}") from None


def rubric_text(rubric: Rubric, path: Path) -> str:
    """The rubric in the native format: JSON for a ``.json`` path, YAML otherwise."""
    if path.suffix.lower() == ".json":
        return str(rubric.to_json()) + "\n"
    return str(rubric.to_yaml())


def check_new_path(path: Path, flag: str, *, force: bool, protect: Path | None = None) -> None:
    """Refuse to replace the user's rubric, and any file without ``--force``.

    Raises:
        ConfigError: the path is ``protect`` (the input rubric), or exists and no ``--force``.
    """
    if protect is not None and path.exists() and path.resolve() == protect.resolve():
        raise ConfigError(
            f"{flag} {path} is the input rubric; it is never overwritten: give another path"
        )
    if path.exists() and not force:
        raise ConfigError(
            f"{flag} {path} exists; give another path, or --force to replace it (the new file "
            "is written beside it and renamed over it only when complete)"
        )
    if not path.parent.is_dir():
        raise ConfigError(f"{flag} {path}: the directory {str(path.parent)!r} does not exist")


def write_new_rubric(rubric: Rubric, path: Path, flag: str) -> Path:
    """Write ``rubric`` to ``path`` whole or not at all (beside it, then renamed)."""
    return write_output(path, rubric_text(rubric, path), flag=flag)
