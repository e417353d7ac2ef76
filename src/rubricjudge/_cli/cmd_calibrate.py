"""``rubricjudge calibrate``: fit a judge's verdict probabilities to human labels.

Grades the training items of a labelled dataset with the judge (``--train N``
items, stratified, or the ids in ``--train-ids FILE``), fits a calibration from
their labels only, and writes it (``-o``, to a temporary file renamed on
success). ``grade`` and ``evaluate`` apply it with ``--calibration FILE``;
``rubricjudge metrics`` leaves the training items out when it compares.

Exit codes: 0 written; 1 a usage or input error (too few labels, unknown ids,
a judge without token probabilities); 2 bad command-line usage.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._limits import json_loads, read_text
from .._model._rubric import CriterionVerdict
from ._dataset_arg import EXAMPLE_PREFIX, add_hf_args, load_dataset_arg
from ._trust_args import BASE_URL_HELP, add_trust_args, base_url_option, trust_options

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``calibrate`` command."""
    p = subparsers.add_parser(
        "calibrate",
        help="fit a judge's verdict probabilities to a dataset's human labels",
        description="Grade the training items of a labelled dataset with --judge and fit, from "
        "their labels only, how the judge's token probabilities map to verdicts. Write the "
        "calibration for `grade --calibration` and `evaluate --calibration`.",
        # the numbers of _calibration._train (which loads numpy: not at --help);
        # tests/calibration/test_calibrate_cli.py checks that they agree
        epilog="Labels needed: a group (every criterion with a positive weight; every "
        "penalty; multi-choice criteria of one kind) is fitted once the training items "
        "carry at least 20 of its labels with at least 5 of each of two answers (MET and "
        "UNMET); a criterion gets its own adjustment on that with 8 labels, 2 of each "
        "answer. Groups short of that are skipped (their criteria keep the judge's own "
        "verdicts), and the output says which. Exit codes: 0 written; 1 a usage or input "
        "error (no group has enough labels, unknown ids, a judge without token "
        "probabilities); 2 bad command-line usage.",
    )
    p.add_argument(
        "dataset", help=f"labelled dataset file or {EXAMPLE_PREFIX}NAME, or a Hugging Face dataset"
    )
    p.add_argument("--judge", default="local", help="judge spec (default: local)")
    p.add_argument("--base-url", metavar="URL[,URL...]", help=BASE_URL_HELP)
    train = p.add_mutually_exclusive_group(required=True)
    train.add_argument("--train", type=int, metavar="N", help="fit on N items, stratified")
    train.add_argument(
        "--train-ids", metavar="FILE", help="fit on these items: one id per line, or a JSON list"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the --train split (default 0)")
    p.add_argument("-o", "--output", required=True, help="where to write the calibration JSON")
    p.add_argument("--run-dir", help="keep the training judgments here (resumable)")
    p.add_argument("--resume", action="store_true", help="continue the run in --run-dir")
    p.add_argument(
        "--concurrency", type=int, default=16, help="judge calls (and items) at once (default 16)"
    )
    p.add_argument(
        "--examples",
        type=int,
        default=0,
        metavar="K",
        help="also choose K labelled training answers per criterion to show the judge (labels "
        "taking turns, the judge's hardest first), then grade the training items again with "
        "them in the prompt and fit on that pass; grading with the calibration shows them "
        "(--max-examples caps them). Default 0: none",
    )
    p.add_argument(
        "--method",
        choices=["auto", "platt", "probe"],
        default="auto",
        help="platt: a scale and bias on the judge's probabilities; probe: also a probe on "
        "its hidden state (the local judge); auto (default): probe when the judge gives "
        "hidden states, else platt. Either way each criterion with a few labels of its own "
        "gets an adjustment on the pooled fit",
    )
    add_hf_args(p)
    add_trust_args(p, calibration=False)
    p.set_defaults(func=run)


def _read_ids(path: str) -> list[str]:
    try:
        text = read_text(path)
    except OSError as e:
        raise ConfigError(f"--train-ids: cannot read {path!r}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"--train-ids: {path} is not UTF-8 text ({e.reason})") from None
    except ValueError as e:  # larger than rubricjudge reads
        raise ConfigError(f"--train-ids: {path}: {e}") from None
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            data = json_loads(stripped)
        except ValueError as e:
            raise ConfigError(f"--train-ids: {path} is not a JSON list of ids ({e})") from None
        if not isinstance(data, list) or not all(isinstance(x, str | int) for x in data):
            raise ConfigError(f"--train-ids: {path} must hold a list of ids (strings)")
        return [str(x) for x in data]
    return [line.strip() for line in text.split("\n") if line.strip()]  # ids may hold U+2028


def run(args: argparse.Namespace) -> int:
    """Run ``rubricjudge calibrate``."""
    from .._graders._criterion import CriterionGrader
    from .._runs._calibrate import calibrate

    if args.resume and not args.run_dir:
        raise ConfigError("--resume needs --run-dir (the directory of the run to continue)")
    if args.concurrency < 1:
        raise ConfigError(f"--concurrency {args.concurrency!r} must be at least 1")
    if args.examples < 0:
        raise ConfigError(f"--examples {args.examples!r} must be 0 or more")
    out = Path(args.output)
    if not out.parent.is_dir():
        raise ConfigError(f"-o {args.output}: the directory {str(out.parent)!r} does not exist")
    dataset = load_dataset_arg(args.dataset, args)
    train_ids = _read_ids(args.train_ids) if args.train_ids else None
    options = trust_options(args, "per-criterion")
    options.pop("escalate_to", None)  # a cascade is applied at grading time, not fitted
    options.pop("below_confidence", None)
    if args.base_url:
        options["judge_options"] = {"base_url": base_url_option(args.base_url)}
    grader = CriterionGrader(args.judge, concurrency=args.concurrency, **options)
    member = grader.members()[0]
    judge_name = str(getattr(member.judge, "name", args.judge))
    source = args.dataset if args.dataset.startswith(EXAMPLE_PREFIX) else str(Path(args.dataset))
    calibration = asyncio.run(
        calibrate(
            dataset,
            grader,
            judge=judge_name,
            verdict_method=grader.method_of(member),
            n_train=args.train,
            train_ids=train_ids,
            seed=args.seed,
            run_dir=args.run_dir,
            resume=args.resume,
            concurrency=args.concurrency,
            dataset_source=source,
            examples=args.examples,
            method=args.method,
        )
    )
    calibration.save(out)
    print(
        f"calibrated {judge_name} ({calibration.verdict_method}) on "
        f"{len(calibration.train_ids)} items: {len(calibration.groups)} group(s)",
        file=sys.stderr,
    )
    names = _criterion_names(dataset)
    for g in calibration.groups:
        raw = f"{g.train_accuracy_raw:.3f}" if g.train_accuracy_raw is not None else "-"
        cal = (
            f"{g.train_accuracy_calibrated:.3f}" if g.train_accuracy_calibrated is not None else "-"
        )
        how = "probe on the hidden state" if g.probe is not None else "scale and bias"
        if g.base == "pooled":
            how = "adjustment of the pooled fit"
        print(
            f"  {_group_name(g.id, names)} ({how}): {g.n} labels {g.counts}; training "
            f"accuracy {raw} -> {cal} (in-sample; `rubricjudge metrics` reports held-out items)",
            file=sys.stderr,
        )
    for line in _skipped(dataset, calibration, names):
        print(line, file=sys.stderr)
    if args.examples:
        shown = sum(len(x) for levels in calibration.examples.values() for x in levels.values())
        print(
            f"  examples: {shown} labelled answers for {len(calibration.examples)} criteria "
            "(fitted with them in the prompt)",
            file=sys.stderr,
        )
    print(f"wrote {out}", file=sys.stderr)
    return 0


def _criterion_names(dataset: Any) -> dict[str, str]:
    """The name of each criterion group (``criterion:<hash>``) in the dataset's rubrics."""
    from .._calibration._groups import criterion_id

    names: dict[str, str] = {}
    seen: set[int] = set()
    for i in range(len(dataset.items)):
        rubric = dataset.get_item_rubric(i)
        if id(rubric) in seen:
            continue
        seen.add(id(rubric))
        for c in rubric.leaves():
            name = c.key or " ".join(c.requirement.split())[:40]
            names.setdefault(f"criterion:{criterion_id(c)}", name)
    return names


def _group_name(gid: str, names: dict[str, str]) -> str:
    """``criterion 'cause'`` for a criterion's group, the group id for the others."""
    if gid in names:
        return f"criterion {names[gid]!r}"
    if gid == "pooled:positive":
        return "pooled:positive (every criterion with a positive weight)"
    if gid == "pooled:negative":
        return "pooled:negative (every penalty)"
    return gid


def _skipped(dataset: Any, calibration: Any, names: dict[str, str]) -> list[str]:
    """Lines naming the groups the training labels could not fit, and why."""
    from .._calibration._groups import group_ids
    from .._calibration._train import (
        MIN_PER_CRITERION,
        MIN_PER_CRITERION_LABEL,
        MIN_PER_LABEL,
        MIN_POOLED,
    )

    truths: dict[str, list[str]] = {}
    train = set(calibration.train_ids)
    for i, item in enumerate(dataset.items):
        key = str(item.id) if getattr(item, "id", None) not in (None, "") else f"#{i}"
        if key not in train:
            continue
        leaves = dataset.get_item_rubric(i).leaves()
        values = list(item.ground_truth or [None] * len(leaves))
        for criterion, value in zip(leaves, values, strict=False):
            if criterion.is_multi_choice:
                continue  # their groups overlap (options, places): not listed here
            for gid in group_ids(criterion):
                bucket = truths.setdefault(gid, [])
                if value is not None:
                    bucket.append(value.value if isinstance(value, CriterionVerdict) else value)
    fitted = {g.id for g in calibration.groups}
    lines: list[str] = []
    for gid in ("pooled:positive", "pooled:negative"):
        if gid in truths and gid not in fitted:
            counts = {t: truths[gid].count(t) for t in sorted(set(truths[gid]))}
            what = "penalties" if gid == "pooled:negative" else "criteria with a positive weight"
            lines.append(
                f"  skipped {_group_name(gid, names)}: {len(truths[gid])} labels {counts}; a "
                f"group needs {MIN_POOLED} with at least {MIN_PER_LABEL} of each of two "
                f"answers, so {what} keep the judge's own verdicts unless their criterion "
                "has its own fit. Label more of them, or train on more items"
            )
    short = [
        names.get(gid, gid)
        for gid in sorted(truths)
        if gid.startswith("criterion:") and gid not in fitted
    ]
    if short:
        lines.append(
            f"  no adjustment of their own for {len(short)} criteria (each needs "
            f"{MIN_PER_CRITERION} labels, {MIN_PER_CRITERION_LABEL} of each answer, on a "
            "fitted group): " + ", ".join(short)
        )
    return lines
