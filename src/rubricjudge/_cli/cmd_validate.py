"""``rubricjudge validate``: check a rubric file in any supported format."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .._errors import ConfigError, RubricError, RubricJudgeError
from .._formats._detect import FORMATS
from .._formats._load import check_data
from .._formats._text import read_source, render
from ._grade_io import iter_items

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]

HELP = "check a rubric file (any supported format)"
DESCRIPTION = """\
Check a rubric file and report every problem, one `path: message` line each.

The format is detected (native, autorubric / rubric, OpenRubricRL, dataknobs);
--format forces one. --data also checks a dataset file or a `grade` input (JSONL):
its items load, and their images and documents exist, stay in the file's folder,
are PNG, JPEG, GIF, WebP or PDF and are within the limits. Exit code 0 when
everything is valid, 1 when it is not.
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
    p.add_argument(
        "--data",
        metavar="DATA",
        help="also check a dataset file or a grade input (JSONL): its items, images and documents",
    )
    p.set_defaults(func=run)


def _check_data(path: str) -> str:
    """``N items, K images, D documents`` of a dataset or ``grade`` input file.

    Raises:
        RubricJudgeError: the file or an item (or one of its parts) is not valid.
    """
    from pathlib import Path

    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"data file {path!r} not found")
    submissions: list[Any] = []
    if _is_grade_input(file):
        with file.open(encoding="utf-8") as f:
            submissions = [it.submission for it in iter_items(f, path, path)]
    else:
        from .._datasets._io import RubricDataset

        dataset = RubricDataset.from_file(file)
        submissions = [it.submission for it in dataset.items]
    parts = [p for sub in submissions for p in getattr(sub, "media", ())]
    images = sum(1 for p in parts if p.kind == "image")
    counts = [
        f"{len(submissions)} item" + ("s" if len(submissions) != 1 else ""),
        f"{images} image" + ("s" if images != 1 else ""),
        f"{len(parts) - images} document" + ("s" if len(parts) - images != 1 else ""),
    ]
    return ", ".join(counts)


def _is_grade_input(file: Any) -> bool:
    """A JSONL file whose first line is an item (``grade``'s input), not a dataset header."""
    if file.suffix.lower() not in (".jsonl", ".ndjson"):
        return False
    with file.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.strip():
                try:
                    first = json.loads(line)
                except ValueError:
                    return False
                return isinstance(first, dict) and "prompt" not in first
    return False


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
    data_error = data_summary = None
    if args.data:
        try:
            data_summary = _check_data(args.data)
        except RubricJudgeError as e:
            data_error = str(e)
            valid = False
    if args.json:
        out = {
            "file": args.file,
            "valid": valid,
            "format": fmt,
            "rubrics": rubrics,
            "criteria": criteria,
            "problems": [{"path": p.path, "message": p.message} for p in problems],
        }
        if args.data:
            out["data"] = {"file": args.data, "valid": data_error is None}
            out["data"]["summary" if data_error is None else "error"] = data_summary or data_error
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0 if valid else 1
    if args.data and not problems:
        if data_error is not None:
            print(f"{args.file}: OK", file=sys.stderr)
            print(f"rubricjudge: error: {data_error}", file=sys.stderr)
            return 1
        print(f"{args.data}: OK ({data_summary})")
    if valid:
        many = f"{rubrics} rubrics, " if rubrics > 1 else ""
        noun = "criterion" if criteria == 1 else "criteria"
        if args.output_format and not args.validate_only:  # the file itself, pretty-printed
            print(render(data, args.output_format), end="")
            print(f"{args.file}: OK ({fmt}, {many}{criteria} {noun})", file=sys.stderr)
            return 0
        print(f"{args.file}: OK ({fmt}, {many}{criteria} {noun})")
        return 0
    for p in problems:
        print(str(p))
    if data_error is not None:
        print(f"rubricjudge: error: {data_error}", file=sys.stderr)
    what = f"a valid {fmt} rubric" if fmt else "a valid rubric"
    count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
    print(f"rubricjudge: {args.file} is not {what} ({count})", file=sys.stderr)
    return 1
