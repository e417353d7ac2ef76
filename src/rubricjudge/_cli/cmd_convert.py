"""``rubricjudge convert``: rewrite a rubric file in another format."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._formats._detect import FORMATS
from .._formats._dump import WRITABLE, convert_rubric
from .._formats._load import load_data
from .._formats._text import dump_kind, read_source, render, write_text

__all__ = ["register", "run"]

HELP = "convert a rubric file to native, OpenRubricRL or dataknobs"
DESCRIPTION = """\
Read a rubric in any supported format and write it as --to.

With -o OUT, writes JSON when OUT ends in .json and YAML otherwise; without -o,
prints to stdout in the input file's kind (JSON for JSON, YAML for YAML). What the
target format cannot hold is either changed and listed on stderr as a warning,
or, when it cannot be expressed at all, an error (exit code 1).
"""


def register(subparsers: Any) -> None:
    """Add the ``convert`` command."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "convert",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="rubric file to read")
    p.add_argument("--to", required=True, choices=WRITABLE, help="format to write")
    p.add_argument("-o", "--output", metavar="OUT", help="file to write (default: stdout)")
    p.add_argument(
        "--from",
        dest="source_format",
        choices=("auto", *FORMATS),
        default="auto",
        help="the input's format (default: auto, detected)",
    )
    p.set_defaults(func=run)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def run(args: argparse.Namespace) -> int:
    """Convert the file and write the result."""
    if args.output and _same_file(args.file, args.output):
        raise ConfigError(
            f"-o {args.output!r} is the input file; convert never overwrites its input, "
            "so give another output path"
        )
    data, kind, name = read_source(args.file)
    rubric = load_data(data, format=args.source_format, source=name)
    out, changes = convert_rubric(rubric, args.to)
    for change in changes:
        print(f"rubricjudge: warning: {change}", file=sys.stderr)
    if args.output:
        write_text(args.output, render(out, dump_kind(args.output)), flag="-o")
        print(f"wrote {args.output} ({args.to})", file=sys.stderr)
    else:
        sys.stdout.write(render(out, kind))
    return 0
