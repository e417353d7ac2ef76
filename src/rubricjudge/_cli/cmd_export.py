"""``rubricjudge export``: a run's results as JSON Lines or CSV, one row per item and criterion.

Exit codes: 0 written; 1 a usage or input error (the message says which); 2 bad
command-line usage.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any

from .._outfile import OutputFile

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``export`` command."""
    p = subparsers.add_parser(
        "export",
        help="write a run's results as JSON Lines or CSV (one row per item and criterion)",
        description="Write the results of a run directory (`evaluate --run-dir`, `grade "
        "--run-dir`) or of the JSONL that `grade -o` writes as one row per item and "
        "criterion: id, criterion, verdict, probability, reason, error, item_score. An item "
        "without a report is one row with an empty criterion and its error.",
        epilog="Exit codes: 0 written; 1 a usage or input error; 2 bad command-line usage.",
    )
    p.add_argument("run", metavar="RUN", help="run directory, or JSONL file of reports")
    p.add_argument(
        "--format",
        choices=["jsonl", "csv"],
        default="jsonl",
        help="jsonl: one JSON object a line (default); csv: a header, then one row a line",
    )
    p.add_argument("-o", "--output", help="write here (default: stdout)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``rubricjudge export``."""
    from .._runs._export import export_rows, load_run, write_rows

    graded = load_run(args.run)
    rows = export_rows(graded)
    if not args.output:
        out: IO[str] = sys.stdout
        write_rows(rows, out, args.format)
        return 0
    target = OutputFile(args.output, flag="-o")
    try:
        n = write_rows(rows, target.stream, args.format)
        target.commit()
    finally:
        target.discard()
    print(f"wrote {n} rows to {args.output}", file=sys.stderr)
    return 0
