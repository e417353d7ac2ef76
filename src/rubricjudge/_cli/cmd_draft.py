"""``rubricjudge draft``: a judge drafts a rubric for a task; ``lint`` checks it.

Exit codes: 0 the rubric was written (lint's remaining warnings are printed); 1 the
judge failed or its draft is not a rubric, lint still finds an error, the output
exists (without ``--force``), or another usage error: nothing is written; 2 bad
command-line usage.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from .._errors import ConfigError, RunError
from ._authoring_io import (
    add_judge_args,
    check_new_path,
    judge_from_args,
    read_text_arg,
    write_new_rubric,
)

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``draft`` command."""
    p = subparsers.add_parser(
        "draft",
        help="draft a rubric for a task with a judge, checked by lint",
        description="Ask --judge for a rubric for the task in TASK (the prompt a model answers): "
        "atomic criteria, penalties for common faults, weights, options where a scale fits. "
        "lint's findings go back to the judge once; what remains is printed. A judge failure "
        "writes nothing. The same inputs, --seed and a cached judge give the same rubric.",
    )
    p.add_argument("task", metavar="TASK", help="a text file holding the task prompt")
    p.add_argument("-o", "--output", required=True, help="the rubric file to write (.yaml, .json)")
    add_judge_args(p)
    p.add_argument(
        "--reference", action="append", default=[], metavar="FILE", help="a reference answer"
    )
    p.add_argument(
        "--good", action="append", default=[], metavar="FILE", help="an answer to rate well"
    )
    p.add_argument(
        "--bad",
        action="append",
        default=[],
        metavar="FILE",
        help="an answer to rate poorly (its faults become penalties)",
    )
    p.add_argument(
        "--name", default="drafted rubric", help="the rubric's name if the judge gives none"
    )
    p.add_argument("--seed", type=int, default=0, help="the judge's seed (default 0)")
    p.add_argument(
        "--max-criteria", type=int, default=8, metavar="N", help="ask for at most N (default 8)"
    )
    p.add_argument(
        "--repair",
        type=int,
        default=1,
        metavar="N",
        help="times lint's findings go back to the judge (default 1; 0: never)",
    )
    p.add_argument("--force", action="store_true", help="replace -o if it exists")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``rubricjudge draft``."""
    from .._authoring._draft import draft_rubric

    out = Path(args.output)
    check_new_path(out, "-o", force=args.force)
    task = read_text_arg(args.task, "TASK")
    refs = [read_text_arg(f, "--reference") for f in args.reference]
    good = [read_text_arg(f, "--good") for f in args.good]
    bad = [read_text_arg(f, "--bad") for f in args.bad]
    judge = judge_from_args(args)
    result = asyncio.run(
        draft_rubric(
            judge,
            task,
            references=refs,
            good=good,
            bad=bad,
            seed=args.seed,
            max_criteria=args.max_criteria,
            repair_rounds=args.repair,
            name=args.name,
        )
    )
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    for f in result.findings:
        print(f"lint: {f}", file=sys.stderr)
    if result.errors:
        raise RunError(
            f"the draft still has {len(result.errors)} lint error(s) (above); nothing was "
            "written. Try another --seed or a stronger --judge"
        )
    if out.exists() and not args.force:  # appeared while the judge worked
        raise ConfigError(f"-o {out} appeared while drafting; nothing was written")
    write_new_rubric(result.rubric, out, "-o")
    n = len(result.rubric.criteria)
    shown = sum(1 for f in result.findings if f.severity == "warning")
    warned = f", {shown} lint warning(s)" if shown else ", lint-clean"
    print(f"drafted {n} criteria with {judge.name} -> {out}{warned}", file=sys.stderr)
    return 0
