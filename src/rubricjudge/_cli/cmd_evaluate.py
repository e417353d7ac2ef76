"""``rubricjudge evaluate``: grade a whole dataset, resumably, into a run directory.

With ``--run-dir`` every judgment is committed as it arrives; after a crash or a
kill, the same command with ``--resume`` repeats no finished judgment. The run
summary goes to stdout (``--json`` for JSON); the progress bar to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError
from .._model._reports import EvaluationReport
from .._outfile import OutputFile
from ._batch_args import add_batch_args, batch_options
from ._call_limit import add_call_limit_args, check_calls, planned_calls
from ._choices import LazyChoices
from ._dataset_arg import EXAMPLE_PREFIX, add_hf_args, load_dataset_arg
from ._grader_args import (
    GRADER_HELP,
    add_conversation_args,
    add_judge_failure_arg,
    build_grader,
    dry_run,
    grader_spec,
    uncalibrated_note,
)
from ._repeat_args import add_repeat_args
from ._trust_args import BASE_URL_HELP, add_cache_args, add_trust_args

if TYPE_CHECKING:
    from .._graders._base import Grader

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``evaluate`` command."""
    p = subparsers.add_parser(
        "evaluate",
        help="grade every item of a dataset into a resumable run directory",
        description="Grade every item of a dataset; with --run-dir the run survives crashes "
        "and kills and continues with --resume.",
    )
    p.add_argument(
        "dataset",
        help=f"dataset file (JSON, YAML, JSONL) or {EXAMPLE_PREFIX}NAME, or a Hugging Face dataset",
    )
    p.add_argument("--judge", help="judge spec (default: local)")
    p.add_argument("--judges", nargs="+", metavar="SPEC", help="an ensemble of judge specs")
    p.add_argument("--base-url", metavar="URL[,URL...]", help=BASE_URL_HELP)
    p.add_argument(
        "--grader",
        choices=LazyChoices("rubricjudge._graders._spec", "GRADER_KINDS"),
        default="per-criterion",
        metavar="KIND",
        help=GRADER_HELP + " (%(choices)s)",
    )
    p.add_argument("--run-dir", help="directory of the run store (needed for --resume)")
    p.add_argument("--resume", action="store_true", help="continue the run in --run-dir")
    p.add_argument(
        "--force",
        action="store_true",
        help="run although --run-dir holds a run of other inputs (its item results are dropped)",
    )
    p.add_argument("--max-items", type=int, help="grade only the first N items")
    p.add_argument(
        "--concurrency", type=int, default=16, help="judge calls (and items) at once (default 16)"
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument(
        "-o",
        "--output",
        help="also write every item's report here, one JSON line each, as `grade -o` does "
        "(an item that failed is a line with its id, score null and the error)",
    )
    p.add_argument(
        "--mlflow",
        metavar="EXPERIMENT",
        help="log the run to this MLflow experiment (parameters, metrics, the HTML report "
        "with --run-dir) at $MLFLOW_TRACKING_URI; needs rubricjudge[mlflow]",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="count calls, tokens and cost (and the --batch-api saving); call nothing",
    )
    g = p.add_argument_group("where items are graded")
    g.add_argument(
        "--executor",
        choices=["local", "ray"],
        default="local",
        help="local: in this process (default); ray: on Ray actors, this process still "
        "commits every judgment to --run-dir (needs rubricjudge[ray])",
    )
    g.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="the Ray cluster to use (ray://HOST:10001, auto); default: start a local one",
    )
    g.add_argument(
        "--ray-actors",
        type=int,
        metavar="N",
        help="Ray actors grading (default: one per CPU of the cluster); --concurrency "
        "then applies to each",
    )
    g.add_argument(
        "--ray-env",
        choices=["judge", "none"],
        default="judge",
        help="environment variables the actors get: judge (default): those the judges "
        "read (their API keys and base URLs, the cache directory, TLS and proxies); none",
    )
    g.add_argument(
        "--ray-env-var",
        action="append",
        metavar="NAME",
        help="give the actors this variable too (repeatable)",
    )
    add_cache_args(p)
    add_hf_args(p)
    add_trust_args(p)
    add_repeat_args(p)
    add_conversation_args(p)
    add_judge_failure_arg(p)
    add_batch_args(p)
    add_call_limit_args(p)
    p.set_defaults(func=run)


def _mlflow_params(args: argparse.Namespace, dataset: Any) -> dict[str, Any]:
    rubric = getattr(dataset, "rubric", None)
    return {
        "dataset": _dataset_source(args.dataset),
        "items": len(dataset.items),
        "rubric": getattr(rubric, "name", None),
        "rubric_version": getattr(rubric, "version", None),
        "judge": ",".join(args.judges) if args.judges else (args.judge or "local"),
        "grader": args.grader,
        "calibration": getattr(args, "calibration", None),
        "max_items": args.max_items,
    }


def _dataset_source(spec: str) -> str:
    if spec.startswith(EXAMPLE_PREFIX):
        return spec
    return str(Path(spec).resolve())


def _work(args: argparse.Namespace, dataset: Any) -> tuple[int, Iterator[tuple[Any, ...]]]:
    """The items in the run's scope, as (rubric, submission, query, reference), and how many."""
    size = len(dataset.items)
    scope = size if args.max_items is None else max(0, min(args.max_items, size))
    work = (
        (
            dataset.get_item_rubric(i),
            dataset.items[i].submission,
            dataset.get_item_query(i),
            dataset.get_item_reference_submission(i),
        )
        for i in range(scope)
    )
    return scope, work


def _dry_run(args: argparse.Namespace, dataset: Any, grader: Grader) -> int:
    if args.batch_api:
        from .._runs._batch_options import check_batchable

        check_batchable(grader)
    return dry_run(args, grader, _work(args, dataset)[1])


def _ray_executor(args: argparse.Namespace) -> Any:
    from .._ray._executor import RayExecutor

    if args.ray_actors is not None and args.ray_actors < 1:
        raise ConfigError(f"--ray-actors {args.ray_actors!r} must be at least 1")
    return RayExecutor(
        grader_spec(args),
        actors=args.ray_actors,
        address=args.ray_address,
        forward_env=args.ray_env == "judge",
        extra_env=args.ray_env_var or (),
    )


def _write_reports(result: Any, path: str) -> None:
    """Write the run's reports to ``path`` as ``grade -o`` does (the id first)."""
    outcomes = {o.index: o for o in result.outcomes}
    target = OutputFile(path, flag="-o")
    try:
        for index, report in enumerate(result.iter_reports()):
            outcome = outcomes.get(index)
            if outcome is None:
                continue  # past --max-items, or never graded
            if report is None:
                report = EvaluationReport(error=outcome.error or "not graded")
            data = report.to_jsonable()
            data.pop("id", None)
            line = {"id": outcome.key, **data}
            target.stream.write(json.dumps(line, ensure_ascii=False) + "\n")
        target.commit()
    finally:
        target.discard()


def run(args: argparse.Namespace) -> int:
    """Run ``rubricjudge evaluate``."""
    from .._runs._evaluate import evaluate_sync

    if args.resume and not args.run_dir:
        raise ConfigError("--resume needs --run-dir (the directory of the run to continue)")
    if args.concurrency < 1:
        raise ConfigError(f"--concurrency {args.concurrency!r} must be at least 1")
    ray_only = args.ray_address or args.ray_actors is not None or args.ray_env_var
    if args.executor != "ray" and (ray_only or args.ray_env != "judge"):
        raise ConfigError(
            "--ray-address, --ray-actors, --ray-env and --ray-env-var need --executor ray"
        )
    batch = None if args.dry_run else batch_options(args)
    dataset = load_dataset_arg(args.dataset, args)
    grader = build_grader(args)
    note = uncalibrated_note(args, args.dataset)
    if note:
        print(note, file=sys.stderr)
    if args.dry_run:
        return _dry_run(args, dataset, grader)
    scope, work = _work(args, dataset)
    stop = check_calls(args, planned_calls(grader, work), f"{scope} items")
    if stop is not None:
        return stop
    if batch is not None and args.executor == "ray":
        raise ConfigError("--batch-api and --executor ray do not go together: choose one")
    executor = _ray_executor(args) if args.executor == "ray" else None
    try:
        result = evaluate_sync(
            dataset,
            grader,
            run_dir=args.run_dir,
            resume=args.resume,
            force=args.force,
            max_items=args.max_items,
            concurrency=args.concurrency,
            dataset_source=_dataset_source(args.dataset),
            batch_api=batch or False,
            executor=executor,
        )
    finally:
        if executor is not None:
            executor.close()
    if args.output:
        _write_reports(result, args.output)
    if args.mlflow:
        from .._report._mlflow import log_to_mlflow

        run_id = log_to_mlflow(
            args.mlflow, result, dataset, _mlflow_params(args, dataset), run_dir=args.run_dir
        )
        print(f"mlflow run: {run_id} (experiment {args.mlflow!r})", file=sys.stderr)
    if args.json:
        print(json.dumps(result.summary.model_dump(mode="json"), indent=2))
    else:
        print(result.summary.to_text())
        if args.run_dir:
            print(f"run directory: {os.fspath(args.run_dir)}")
    # an item whose grading raised, or whose judge failed on a weighted criterion, failed
    return 1 if result.summary.items_failed or result.summary.items_unscored else 0
