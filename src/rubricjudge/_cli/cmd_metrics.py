"""``rubricjudge metrics``: agreement of a run's judgments with the dataset's ground truth."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._runs._fingerprint import graded_this_dataset
from .._stats._flips import FlipTally
from ._dataset_arg import load_dataset_arg
from .cmd_calibrate import _read_ids

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``metrics`` command."""
    p = subparsers.add_parser(
        "metrics",
        help="agreement of a run's judgments with human labels",
        description="Compare the judgments in a run directory with the dataset's ground truth: "
        "per-criterion and item-level agreement, with bootstrap confidence intervals; list the "
        "least stable criteria of a run with --repeats. Given the -o file of `grade --pairwise`, "
        "compare its preferences with the human labels of its pairs (label: a, b or tie).",
        epilog="Exit codes: 0 printed; 1 a usage or input error; 2 bad command-line usage.",
    )
    p.add_argument(
        "run_dir",
        metavar="RUN",
        help="run directory written by `rubricjudge evaluate --run-dir`, or the JSONL written "
        "by `rubricjudge grade --pairwise -o`",
    )
    p.add_argument(
        "--dataset", help="dataset with the ground truth (default: the one the run used)"
    )
    p.add_argument("--bootstrap", type=int, default=0, metavar="N", help="bootstrap resamples")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (0.95)")
    p.add_argument("--seed", type=int, default=0, help="seed of the resampling")
    p.add_argument(
        "--na-mode",
        choices=("exclude", "as_unmet", "category"),
        default="exclude",
        help="how N/A and CANNOT_ASSESS count (default: exclude)",
    )
    p.add_argument(
        "--exclude-ids",
        metavar="FILE",
        help="leave these items out: one id per line, or a JSON list",
    )
    p.add_argument(
        "--calibration",
        metavar="FILE",
        help="a calibration file: leave out the items it was fitted on (its train_ids)",
    )
    p.add_argument(
        "--include-training",
        action="store_true",
        help="count the items the run's own calibration was fitted on (left out by default: "
        "the calibration has seen their labels)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def _dataset_for(run_dir: Path, override: str | None) -> Any:
    if override:
        return load_dataset_arg(override)
    from .._runs._evaluate import DATASET_COPY
    from .._runs._store import RunStore

    copy = run_dir / DATASET_COPY
    if copy.is_file():
        return load_dataset_arg(str(copy))
    store = RunStore(run_dir)
    try:
        source = store.meta().get("dataset_source")
    finally:
        store.close()
    if source:
        return load_dataset_arg(source)
    raise ConfigError(
        f"run directory {str(run_dir)!r} does not say which dataset it used; pass --dataset"
    )


def _run_training_ids(run_dir: Path) -> list[str]:
    """The ids the calibration of the run in ``run_dir`` was fitted on (it records them)."""
    from .._runs._read import recorded_training_ids
    from .._runs._store import RunStore

    store = RunStore(run_dir)
    try:
        return recorded_training_ids(store.meta())
    finally:
        store.close()


def _check_same(run_dir: Path, dataset: Any) -> None:
    if not graded_this_dataset(run_dir, dataset):
        raise ConfigError(
            f"the dataset differs from the one run directory {str(run_dir)!r} graded "
            "(its items, submissions, queries or rubrics changed); pass the dataset the "
            "run used (ground-truth labels may differ)"
        )


def _pairwise(args: argparse.Namespace) -> int:
    from .._metrics._pairwise import pairwise_metrics, read_pairwise_reports

    for flag, given in (
        ("--dataset", args.dataset),
        ("--exclude-ids", args.exclude_ids),
        ("--calibration", args.calibration),
        ("--include-training", args.include_training),
    ):
        if given:
            raise ConfigError(f"{flag} applies to a run directory, not to pairwise results")
    result = pairwise_metrics(
        read_pairwise_reports(args.run_dir),
        bootstrap=args.bootstrap,
        confidence=args.confidence,
        seed=args.seed,
    )
    if args.json:
        print(result.model_dump_json(indent=2))
        return 0
    print(result.to_text())
    if not result.stats.labelled:
        print("no pair has a human label: give each input line a label (a, b or tie)")
    return 0


def run(args: argparse.Namespace) -> int:
    """Run ``rubricjudge metrics``."""
    from .._metrics._compute import compute_metrics
    from .._runs._result import RunResult

    if Path(args.run_dir).is_file():
        return _pairwise(args)
    result = RunResult.open(args.run_dir)
    dataset = _dataset_for(Path(args.run_dir), args.dataset)
    _check_same(Path(args.run_dir), dataset)
    exclude: set[str] = set()
    if args.exclude_ids:
        exclude.update(_read_ids(args.exclude_ids))
    if args.calibration:
        from .._calibration._groups import Calibration

        exclude.update(Calibration.load(args.calibration).train_ids)
    training = [] if args.include_training else _run_training_ids(Path(args.run_dir))
    exclude.update(training)
    options: dict[str, Any] = {
        "na_mode": args.na_mode,
        "bootstrap": args.bootstrap,
        "confidence": args.confidence,
        "seed": args.seed,
        "exclude_ids": exclude or None,
    }
    reports = list(result.iter_reports())
    report = compute_metrics(reports, dataset, **options)
    before = None
    if report.calibrated_answers:  # the same items, with the judge's own verdicts
        before = compute_metrics(reports, dataset, verdicts="raw", **options)
    flips = FlipTally()
    for r in reports:
        flips.add(r)
    if args.json:
        data = report.to_jsonable()
        if before is not None:
            data["before_calibration"] = before.to_jsonable()
        if flips.counts:
            data["flip_rates"] = {k: v for k, v, _ in flips.least_stable(len(flips.counts))}
        print(json.dumps(data, indent=2))
        return 0
    if training and report.excluded_items:
        print(
            f"left out {report.excluded_items} items the run's calibration was fitted on "
            "(--include-training counts them)"
        )
    if before is not None:
        print("== before calibration (the judge's own verdicts)")
        print(before.to_text())
        print("\n== after calibration (the verdicts that counted)")
    print(report.to_text())
    for line in flips.lines():
        print(line)
    return 0
