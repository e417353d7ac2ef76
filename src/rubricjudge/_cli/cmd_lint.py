"""``rubricjudge lint``: check a rubric's structure and wording."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from .._errors import RubricError
from .._formats._detect import check_format, detect_format
from .._formats._load import load_data
from .._formats._text import read_source

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]

HELP = "check a rubric's structure and wording"
DESCRIPTION = """\
Check a rubric file for problems: duplicate criteria, weights that break the
format's rule (OpenRubricRL and dataknobs weights sum to 1), an unreachable or
trivial pass threshold, levels out of order, options that never give credit,
penalty-only rubrics, and wording that is vague, double-barrelled or overlapping.

With --judge SPEC a judge also reviews each criterion's wording; a judge failure
is reported as an error. Prints one line per finding, "severity path: message";
exits 1 when any finding is an error.
"""


def register(subparsers: Any) -> None:
    """Add the ``lint`` command."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "lint",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("rubric", metavar="RUBRIC", help="rubric file (any supported format)")
    p.add_argument("--judge", metavar="SPEC", help="also ask this judge about each criterion")
    p.add_argument("--format", default="auto", help="the file's format (default: detect)")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.set_defaults(func=run)


def _emit(findings: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        errors = sum(1 for f in findings if f["severity"] == "error")
        json.dump({"findings": findings, "errors": errors}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    for f in findings:
        print(f"{f['severity']} {f['path'] or '<rubric>'}: {f['message']}")
    if not findings:
        print("no findings")


def run(args: argparse.Namespace) -> int:
    """Lint the rubric; 1 when there is an error finding."""
    from .._lint._rules import lint_rubric, lint_rubric_with_judge

    fmt = check_format(args.format)
    try:
        data, _, name = read_source(args.rubric)
        if fmt == "auto":
            fmt = detect_format(data, source=name)
        rubric = load_data(data, format=fmt, source=name)
    except RubricError as e:
        # a rubric that does not load is the first finding, one line per problem
        found = [
            {
                "severity": "error",
                "path": p.path,
                "message": p.message,
                "check": "load",
                "source": "structure",
            }
            for p in e.problems
        ]
        _emit(found, args.json)
        return 1
    source_format = None if fmt == "native" else fmt
    if args.judge:
        findings = asyncio.run(lint_rubric_with_judge(rubric, args.judge, format=source_format))
    else:
        findings = lint_rubric(rubric, format=source_format)
    _emit([f.to_dict() for f in findings], args.json)
    return 1 if any(f.severity == "error" for f in findings) else 0
