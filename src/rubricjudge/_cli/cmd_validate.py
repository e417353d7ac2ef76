"""``rubricjudge validate``: check a rubric file in any supported format."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .._errors import RubricError
from .._formats import FORMATS, check_data
from .._formats._text import read_source

__all__ = ["register", "run"]

HELP = "check a rubric file (any supported format)"
DESCRIPTION = """\
Check a rubric file and report every problem, one `path: message` line each.

The format is detected (native, autorubric / rubric, OpenRubricRL, dataknobs);
--format forces one. Exit code 0 when the file is valid, 1 when it is not.
"""


def register(subparsers: Any) -> None:
    """Add the ``validate`` command."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "validate",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="rubric file (.yaml, .yml or .json)")
    p.add_argument(
        "--format",
        choices=("auto", *FORMATS),
        default="auto",
        help="the file's format (default: auto, detected)",
    )
    p.add_argument("--json", action="store_true", help="print the result as a JSON object")
    p.add_argument(
        "--validate-only",
        action="store_true",
        help="only check (OpenRubricRL's flag; checking is all validate does without "
        "--output-format)",
    )
    p.add_argument(
        "--output-format",
        choices=("json", "yaml"),
        help="after a successful check, print the rubric in this format (OpenRubricRL's flag)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Validate the file and print the verdict."""
    fmt: str | None = None
    criteria = 0
    try:
        data, _, _ = read_source(args.file)
        checked = check_data(data, format=args.format, source=args.file)
        problems, fmt = checked.problems, checked.format
        criteria = sum(len(r.criteria) for r in checked.rubrics)
        rubrics = len(checked.rubrics)
    except RubricError as e:
        problems, rubrics = e.problems, 0
    valid = not problems
    if args.json:
        out = {
            "file": args.file,
            "valid": valid,
            "format": fmt,
            "rubrics": rubrics,
            "criteria": criteria,
            "problems": [{"path": p.path, "message": p.message} for p in problems],
        }
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0 if valid else 1
    if valid:
        many = f"{rubrics} rubrics, " if rubrics > 1 else ""
        noun = "criterion" if criteria == 1 else "criteria"
        if args.output_format and not args.validate_only:  # the file itself, pretty-printed
            from .._formats._text import render

            print(render(data, args.output_format), end="")
            print(f"{args.file}: OK ({fmt}, {many}{criteria} {noun})", file=sys.stderr)
            return 0
        print(f"{args.file}: OK ({fmt}, {many}{criteria} {noun})")
        return 0
    for p in problems:
        print(str(p))
    what = f"a valid {fmt} rubric" if fmt else "a valid rubric"
    count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
    print(f"rubricjudge: {args.file} is not {what} ({count})", file=sys.stderr)
    return 1
