"""``rubricjudge report``: one self-contained HTML page of a run, with plots.

Exit codes: 0 written; 1 a usage or input error (the message says which); 2 bad
command-line usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``report`` command."""
    p = subparsers.add_parser(
        "report",
        help="write an HTML report of a run (plots, agreement, every item)",
        description="Write one self-contained HTML file (no network needed) about a run "
        "directory of `rubricjudge evaluate` or a JSONL file of `rubricjudge grade`: overview, "
        "per-criterion answers and confidence, agreement with human labels, and every item. "
        "Needs matplotlib: pip install 'rubricjudge[report]'.",
    )
    p.add_argument("source", help="run directory, or JSONL file of reports")
    p.add_argument("-o", "--output", default="report.html", help="HTML file (default report.html)")
    p.add_argument(
        "--compare",
        metavar="OTHER",
        help="another run (directory or JSONL) to compare with; deltas are this run minus OTHER",
    )
    p.add_argument(
        "--submissions",
        metavar="INPUT.jsonl",
        help="for a JSONL source: the grade input, to show each item's submission",
    )
    p.add_argument(
        "--include-training",
        action="store_true",
        help="count the items the run's calibration was fitted on in the agreement with "
        "people (left out by default: the calibration has seen their labels)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``rubricjudge report``."""
    from .._report._write import write_report

    out = write_report(
        args.source,
        args.output,
        compare=args.compare,
        submissions=args.submissions,
        include_training=args.include_training,
    )
    print(f"wrote {Path(out)}", file=sys.stderr)
    return 0
