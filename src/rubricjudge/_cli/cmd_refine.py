"""``rubricjudge refine``: rewrite the criteria a judge gets wrong, keeping what measurably helps.

Exit codes: 0 done: a new rubric version was written, or no candidate passed the test
and the rubric is unchanged (it says so; nothing but ``--report`` is written); 1 a
usage or input error, or the judge failed (nothing is written); 2 bad command-line
usage.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._model._rubric import Rubric
from .._outfile import write_output
from ._authoring_io import add_judge_args, check_new_path, judge_from_args, write_new_rubric
from ._dataset_arg import EXAMPLE_PREFIX, load_dataset_arg

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``refine`` command."""
    p = subparsers.add_parser(
        "refine",
        help="refine a rubric's wording from labelled items, keeping what measurably helps",
        description="Judge every criterion of RUBRIC on DATASET's labelled items, ask --judge to "
        "rewrite the criteria it gets wrong most (and those labellers disagree on), and keep a "
        "rewrite only if agreement with the labels rises on held-out items beyond noise "
        "(McNemar exact test). Writes the refined rubric as a new minor version with a "
        "changelog; never overwrites RUBRIC.",
    )
    p.add_argument(
        "rubric",
        metavar="RUBRIC",
        help=f"the rubric file the labels were given for, or {EXAMPLE_PREFIX}NAME (its rubric)",
    )
    p.add_argument(
        "dataset", metavar="DATASET", help=f"labelled dataset file or {EXAMPLE_PREFIX}NAME"
    )
    add_judge_args(p)
    p.add_argument(
        "-o",
        "--output",
        help="where to write the refined rubric (default: beside RUBRIC, named with the new "
        "version)",
    )
    p.add_argument("--report", metavar="FILE", help="also write the full report as JSON here")
    p.add_argument("--seed", type=int, default=0, help="split and judge seed (default 0)")
    p.add_argument(
        "--holdout",
        type=float,
        default=0.5,
        metavar="SHARE",
        help="share of labelled items held out to test candidates (default 0.5)",
    )
    p.add_argument(
        "--max-criteria", type=int, default=3, metavar="N", help="work on N criteria (default 3)"
    )
    p.add_argument(
        "--candidates",
        type=int,
        default=2,
        metavar="N",
        help="rewrites asked of the judge per criterion (default 2)",
    )
    p.add_argument(
        "--examples",
        type=int,
        default=2,
        metavar="K",
        help="one more candidate per criterion: K labelled answers added as examples "
        "(default 2; 0: none)",
    )
    p.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="the test's level over all candidates, Bonferroni-divided (default 0.05)",
    )
    p.add_argument("--concurrency", type=int, default=4, help="judge calls at once (default 4)")
    p.add_argument(
        "--registry",
        metavar="URL",
        help="also store the refined rubric as a new version in this registry (database path "
        "or URL; the original is registered first if it is not there)",
    )
    p.add_argument("--force", action="store_true", help="replace -o / --report if they exist")
    p.set_defaults(func=run)


def _load_rubric(spec: str) -> tuple[Any, Path | None]:
    if spec.startswith(EXAMPLE_PREFIX):
        data = load_dataset_arg(spec)
        if data.rubric is None:
            raise ConfigError(f"RUBRIC {spec}: this example has no dataset-wide rubric")
        return data.rubric, None

    path = Path(spec)
    if not path.is_file():
        raise ConfigError(f"RUBRIC {spec!r} not found; give a rubric file")
    return Rubric.from_file(path), path


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _table(result: Any) -> str:
    rows = [("criterion", "propose", "labellers", "held-out", "before", "after", "change")]
    for r in result.criteria:
        lab = f"{r.labeller_disagreements}/{r.labeller_pairs}" if r.labeller_pairs else "-"
        change = r.change.kind if r.change else ("no gain" if r.candidates else "-")
        rows.append(
            (r.name, _pct(r.propose_agreement), lab, str(r.heldout_n), _pct(r.before),
             _pct(r.after), change)
        )  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


def run(args: argparse.Namespace) -> int:
    """Run ``rubricjudge refine``."""
    from .._authoring._refine import bump_minor, refine_rubric

    rubric, source = _load_rubric(args.rubric)
    if args.output:
        out = Path(args.output)
    elif source is not None:
        suffix = source.suffix if source.suffix in (".json", ".yaml", ".yml") else ".yaml"
        out = source.with_name(f"{source.stem}.v{bump_minor(rubric.version)}{suffix}")
    else:
        raise ConfigError(f"RUBRIC {args.rubric} is not a file: give -o for the refined rubric")
    check_new_path(out, "-o", force=args.force, protect=source)
    if args.report:
        check_new_path(Path(args.report), "--report", force=args.force, protect=source)
    if args.registry and not rubric.id:
        raise ConfigError(
            f"--registry: the rubric {rubric.name or args.rubric!r} has no id; the registry "
            "stores rubrics by id: add `id:` to the rubric file"
        )
    dataset = load_dataset_arg(args.dataset)
    judge = judge_from_args(args)
    result = asyncio.run(
        refine_rubric(
            rubric,
            dataset,
            judge,
            seed=args.seed,
            holdout=args.holdout,
            max_criteria=args.max_criteria,
            candidates=args.candidates,
            examples=args.examples,
            alpha=args.alpha,
            concurrency=args.concurrency,
            log=lambda line: print(line, file=sys.stderr),
        )
    )
    print(_table(result))
    per = f"{result.alpha:g} over {result.tests} candidate(s)"
    if args.report:
        write_output(args.report, json.dumps(result.to_dict(), indent=2) + "\n", flag="--report")
    if not result.changed:
        print(
            f"no candidate beat the original on the {len(result.heldout_ids)} held-out items "
            f"({result.test}, alpha {per}): the rubric is unchanged; no rubric was written"
        )
        return 0
    for line in result.changelog:
        print(f"kept: {line}")
    write_new_rubric(result.rubric, out, "-o")
    print(f"wrote version {result.rubric.version} -> {out}")
    if args.registry:
        from .._registry._records import RubricNotFound
        from .._registry._store import RubricRegistry

        registry = RubricRegistry(args.registry)
        try:
            registry.get_version(str(rubric.id))
        except RubricNotFound:
            registry.register(rubric)
        stored = registry.update(result.rubric, bump="minor")
        print(f"registry: {stored.rubric_id} version {stored.version}")
    return 0
