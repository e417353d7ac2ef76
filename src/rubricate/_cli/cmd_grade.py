"""``rubricate grade``: grade submissions against a rubric, one JSON report per line.

Items are graded concurrently and written in input order as soon as every earlier
item is done (a small reorder buffer), each line flushed, so an interrupted run
keeps what it finished. The summary goes to stderr, as does the progress bar
(only on a terminal). ``--dry-run`` counts calls, tokens and dollars and calls nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from .._errors import ConfigError, RunError
from .._model import Rubric
from .._reports import EvaluationReport
from ._grade_io import Item, Progress, estimate_cost, read_items, summary
from ._trust_args import (
    add_cache_args,
    add_trust_args,
    cache_options,
    cascade_estimate,
    trust_options,
)

__all__ = ["register", "run"]

GRADERS = ("per-criterion", "one-shot", "holistic")
COMPLETION_TOKENS = {"per-criterion": 40, "one-shot": 40, "holistic": 60}


def register(subparsers: Any) -> None:
    """Add the ``grade`` command."""
    p = subparsers.add_parser(
        "grade",
        help="grade submissions against a rubric",
        description="Grade submissions (JSONL: submission, id, query, reference) against a "
        "rubric; write one EvaluationReport per line, in input order.",
        epilog="Exit codes: 0 graded (items whose judges failed are recorded in their "
        "reports); 1 a usage or input error, or no item could be graded (-o then keeps what "
        "it held); 2 bad command-line usage; 130 interrupted; 141 stdout closed.",
    )
    p.add_argument("rubric", help="rubric file (YAML or JSON, any supported format)")
    p.add_argument("input", nargs="?", help="JSONL file of submissions, or - for stdin")
    p.add_argument("-o", "--output", help="write the JSONL reports here (default: stdout)")
    p.add_argument("--text", help="grade this one submission instead of an input file")
    p.add_argument("--query", help="the query for --text")
    p.add_argument("--judge", help="judge spec (default: local)")
    p.add_argument(
        "--judges",
        nargs="+",
        metavar="SPEC",
        help="an ensemble: specs separated by commas or spaces; SPEC=WEIGHT sets a vote "
        "weight (votes are weighted; a criterion's own aggregation still wins)",
    )
    p.add_argument("--grader", choices=GRADERS, default="per-criterion")
    p.add_argument("--concurrency", type=int, default=8, help="judge calls at once (default 8)")
    p.add_argument(
        "--max-examples",
        type=int,
        default=None,
        metavar="N",
        help="show at most N of a criterion's calibration examples (default: all)",
    )
    p.add_argument("--base-url", help="base URL of an OpenAI-compatible server")
    p.add_argument(
        "--dry-run", action="store_true", help="count calls, tokens and cost; call nothing"
    )
    add_cache_args(p)
    add_trust_args(p)
    p.set_defaults(func=run)


def _load_rubric(path: str) -> Rubric:
    if not Path(path).is_file():
        raise ConfigError(f"rubric file {path!r} not found")
    try:
        from .._formats import load_file
    except ModuleNotFoundError as e:  # pragma: no cover - until _formats lands
        if e.name != "rubricate._formats":
            raise
        import yaml

        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        return Rubric(data) if isinstance(data, list) else Rubric(**data)
    rubric: Rubric = load_file(path)
    return rubric


def _judge_specs(args: argparse.Namespace) -> list[Any]:
    from .._graders import JudgeSpec

    if not args.judges:
        return []
    specs: list[Any] = []
    for chunk in args.judges:
        for spec in filter(None, (s.strip() for s in chunk.split(","))):
            name, sep, weight = spec.rpartition("=")
            if sep:
                try:
                    specs.append(JudgeSpec(name, weight=float(weight)))
                    continue
                except ValueError:
                    raise ConfigError(
                        f"--judges: weight {weight!r} of {name!r} is not a number"
                    ) from None
            specs.append(JudgeSpec(spec))
    return specs


def _grader(args: argparse.Namespace) -> Any:
    from .._graders import CriterionGrader, PerCriterionOneShotGrader, RubricAsJudgeGrader

    cls = {"per-criterion": CriterionGrader, "one-shot": PerCriterionOneShotGrader}.get(
        args.grader, RubricAsJudgeGrader
    )
    if args.concurrency < 1:
        raise ConfigError(f"--concurrency {args.concurrency!r} must be at least 1")
    options: dict[str, Any] = {"concurrency": args.concurrency}
    options.update(trust_options(args, args.grader))
    max_examples = getattr(args, "max_examples", None)  # `evaluate` shares this helper
    if max_examples is not None and cls is not RubricAsJudgeGrader:
        options["max_examples"] = max_examples
    judge_options = cache_options(args)
    if args.base_url:
        judge_options["base_url"] = args.base_url
    if judge_options:
        options["judge_options"] = judge_options
    judges = _judge_specs(args)
    if judges and args.judge:
        raise ConfigError("give --judge or --judges, not both")
    if judges:
        if cls is not RubricAsJudgeGrader:
            # with equal weights these equal majority / mean / mode; SPEC=WEIGHT then counts
            options.update(
                aggregation="weighted",
                ordinal_aggregation="weighted_mean",
                nominal_aggregation="weighted_mode",
            )
        return cls(judges=judges, **options)
    return cls(args.judge or "local", **options)


def _items(args: argparse.Namespace) -> list[Item]:
    if args.text is not None:
        if args.input:
            raise ConfigError("give an INPUT file or --text, not both")
        return [Item(line=0, id="1", submission=args.text, query=args.query, reference=None)]
    if not args.input:
        raise ConfigError("give an INPUT file (JSONL, or - for stdin) or --text")
    if args.input == "-":
        return read_items(sys.stdin, "<stdin>")
    path = Path(args.input)
    if not path.is_file():
        raise ConfigError(f"input file {args.input!r} not found")
    with path.open(encoding="utf-8") as f:
        return read_items(f, args.input)


def _spec_names(args: argparse.Namespace) -> list[str]:
    if args.judges:
        return [getattr(s, "judge", s) for s in _judge_specs(args)]
    return [args.judge or "local"]


def _dry_run(args: argparse.Namespace, rubric: Rubric, grader: Any, items: list[Item]) -> int:
    calls = tokens = 0
    for it in items:
        plan = grader.plan(rubric, it.submission, query=it.query, reference_submission=it.reference)
        calls += plan.judge_calls
        tokens += plan.prompt_tokens
    completion = calls * COMPLETION_TOKENS[args.grader]
    names = _spec_names(args)
    costs = [estimate_cost(str(n), tokens // len(names), completion // len(names)) for n in names]
    cost = "unknown" if any(c is None for c in costs) else f"${sum(c or 0.0 for c in costs):.4f}"
    print(
        f"dry run: {len(items)} items, {calls} judge calls, about {tokens} prompt tokens "
        f"+ {completion} completion tokens, about {cost} ({', '.join(names)})",
        file=sys.stderr,
    )
    cascade = cascade_estimate(args, grader, calls, tokens)
    if cascade:
        print(cascade, file=sys.stderr)
    return 0


async def _grade_all(
    rubric: Rubric, grader: Any, items: Sequence[Item], out: IO[str], in_flight: int
) -> list[EvaluationReport]:
    progress = Progress(len(items))
    done: dict[int, EvaluationReport] = {}
    written: list[EvaluationReport] = []
    gate = asyncio.Semaphore(in_flight)

    def flush() -> None:
        while len(written) in done:
            report = done.pop(len(written))
            data = report.to_jsonable()
            data = {"id": data.pop("id", None), **data}  # the id first, for people reading
            out.write(json.dumps(data, ensure_ascii=False) + "\n")
            out.flush()
            written.append(report)

    async def one(i: int, it: Item) -> None:
        async with gate:
            try:
                report = await grader.grade(
                    rubric,
                    it.submission,
                    query=it.query,
                    reference_submission=it.reference,
                    item_id=it.id,
                )
            except RunError as e:  # recorded like any other failure; usage errors stop the run
                report = EvaluationReport(score=None, error=str(e), id=it.id)
        done[i] = report
        progress.step()
        flush()

    tasks = [asyncio.ensure_future(one(i, it)) for i, it in enumerate(items)]
    try:
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
    return written


def run(args: argparse.Namespace) -> int:
    """Run ``rubricate grade``."""
    rubric = _load_rubric(args.rubric)
    grader = _grader(args)
    items = _items(args)
    if args.dry_run:
        return _dry_run(args, rubric, grader, items)
    out: IO[str]
    tmp: Path | None = None
    if args.output:  # a temporary file beside the output, renamed on success
        target = Path(args.output)
        if not target.parent.is_dir():
            raise ConfigError(
                f"-o {args.output}: the directory {str(target.parent)!r} does not exist"
            )
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
        tmp = Path(name)
        out = os.fdopen(fd, "w", encoding="utf-8")
    else:
        out = sys.stdout
    ok = False
    try:
        reports = asyncio.run(_grade_all(rubric, grader, items, out, max(1, args.concurrency)))
        ok = True
    finally:
        if tmp is not None:
            out.close()
            if ok:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp, 0o666 & ~umask)
                os.replace(tmp, args.output)
            else:  # what the user had at -o is left as it was
                tmp.unlink(missing_ok=True)
    print(
        summary(reports, judges=", ".join(_spec_names(args)), grader=args.grader), file=sys.stderr
    )
    if reports and all(r.score is None for r in reports):
        print("rubricate: error: no item could be graded (see the errors above)", file=sys.stderr)
        return 1
    return 0
