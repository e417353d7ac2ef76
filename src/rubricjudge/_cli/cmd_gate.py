"""``rubricjudge gate``: fail a build when a new run is significantly worse than a baseline.

Exit codes: 0 the new run is not significantly worse beyond ``--max-drop``; 1 it
is, or it has items whose judge failed that the baseline graded (a failure of the new
run is never a paired improvement; the message names them); 2 bad usage or input, or
too few items pair up to decide (the message gives the counts). A usage error exits 2
here, not 1, so that 1 always means "worse".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .._errors import ConfigError, RubricJudgeError
from .._runs._fingerprint import graded_this_dataset
from ._dataset_arg import load_dataset_arg

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``gate`` command."""
    p = subparsers.add_parser(
        "gate",
        help="fail (exit 1) when a new run is significantly worse than a baseline",
        description="Pair the items of two runs by id and compute the change of a metric "
        "(new minus baseline) with a paired bootstrap interval. Exit 0 when the new run is "
        "not significantly worse beyond --max-drop, 1 when it is (the whole interval lies "
        "below -MAX_DROP) or when it has judge failures the baseline has not (named), 2 on bad "
        "usage or when too few items pair up. Prints one line for the CI log, then the "
        "criteria that dropped most.",
    )
    p.add_argument("baseline", metavar="BASELINE", help="run directory or `grade` JSONL output")
    p.add_argument("new", metavar="NEW", help="the run to check, as BASELINE")
    p.add_argument(
        "--metric",
        default="mean_score",
        help="mean_score (default), pass_rate or criterion:NAME (a criterion's mean credit)",
    )
    p.add_argument(
        "--max-drop",
        type=float,
        default=0.0,
        metavar="D",
        help="the drop allowed (default 0: any significant drop fails)",
    )
    p.add_argument(
        "--confidence", type=float, default=0.95, help="level of the interval (default 0.95)"
    )
    p.add_argument(
        "--bootstrap", type=int, default=2000, metavar="N", help="resamples (default 2000)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the resampling (default 0)")
    p.add_argument(
        "--min-pairs", type=int, default=10, metavar="N", help="refuse with fewer paired items"
    )
    p.add_argument(
        "--min-coverage",
        type=float,
        default=0.9,
        metavar="F",
        help="refuse when fewer than this share of the baseline's items pair up (default 0.9)",
    )
    p.add_argument(
        "--pass-threshold",
        type=float,
        metavar="T",
        help="pass_rate: pass at this score instead of each rubric's pass_threshold",
    )
    p.add_argument(
        "--top", type=int, default=3, metavar="N", help="criteria shown that dropped most (3)"
    )
    p.add_argument(
        "--dataset",
        metavar="DATASET",
        help="read the human labels of both run directories from this dataset (default: "
        "each run's own copy, taken when it ran, perhaps before anyone labelled)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def _with_dataset(path: str, flag: str, dataset: Any) -> Any:
    """The run at ``path`` read, its human labels taken from ``dataset``.

    Raises:
        ConfigError: ``path`` is not a run directory, or graded another dataset.
    """
    from pathlib import Path

    from .._runs._read import read_run_dir

    if not Path(path).is_dir():
        raise ConfigError(
            f"--dataset applies to run directories; {flag} {path!r} is not one (a `grade` "
            "JSONL file carries no dataset)"
        )
    run = read_run_dir(path)
    if not graded_this_dataset(path, dataset):
        raise ConfigError(
            f"--dataset differs from the one {flag} {path!r} graded (its items, submissions, "
            "queries or rubrics changed); give the dataset the runs graded"
        )
    run.dataset = dataset
    return run


def run(args: argparse.Namespace) -> int:
    """Run ``rubricjudge gate``."""
    from .._metrics._gate import gate_runs

    try:
        baseline: Any = args.baseline
        new: Any = args.new
        if args.dataset:
            dataset = load_dataset_arg(args.dataset)
            baseline = _with_dataset(args.baseline, "BASELINE", dataset)
            new = _with_dataset(args.new, "NEW", dataset)
        result = gate_runs(
            baseline,
            new,
            metric=args.metric,
            max_drop=args.max_drop,
            confidence=args.confidence,
            bootstrap=args.bootstrap,
            seed=args.seed,
            min_pairs=args.min_pairs,
            min_coverage=args.min_coverage,
            pass_threshold=args.pass_threshold,
        )
    except RubricJudgeError as e:
        print(f"rubricjudge: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_jsonable(), indent=2))
        return 1 if result.worse else 0
    print("\n".join(result.lines(args.top)))
    if result.worse and os.environ.get("GITHUB_ACTIONS") == "true":
        # a workflow command: GitHub shows the line as an error annotation on the run
        print(f"::error title=rubricjudge gate::{_workflow_data(result.line())}")
    return 1 if result.worse else 0


def _workflow_data(text: str) -> str:
    """``text`` escaped as the message of a GitHub Actions workflow command."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
