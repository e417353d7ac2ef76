"""``rubricjudge grade``: grade submissions against a rubric, one JSON report per line.

A thin command over the runs engine that ``evaluate`` uses: input is streamed
(a file is checked in a first pass, then read again as it is graded), items are
graded by a fixed pool of workers and written in input order through a bounded
reorder buffer, each line flushed to stdout or a pipe. With ``--run-dir`` every judgment and item is
committed as it arrives and ``--resume`` continues a killed run. The summary and
the progress bar go to stderr. ``--dry-run`` counts calls, tokens and dollars.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .._errors import ConfigError
from .._formats._load import load_file
from .._model._reports import EvaluationReport
from .._model._rubric import Rubric
from .._outfile import OutputFile
from .._runs._fingerprint import fingerprint
from ._batch_args import add_batch_args, batch_options
from ._call_limit import add_call_limit_args, check_calls, planned_calls
from ._choices import LazyChoices
from ._dataset_arg import HF_FLAGS, add_hf_args
from ._grade_io import Item, Tally, iter_items
from ._grader_args import (
    GRADER_HELP,
    add_conversation_args,
    add_judge_failure_arg,
    build_grader,
    dry_run,
    judge_names,
    uncalibrated_note,
)
from ._repeat_args import add_repeat_args
from ._trust_args import (
    BASE_URL_HELP,
    add_cache_args,
    add_trust_args,
)

if TYPE_CHECKING:
    from .._graders._base import Grader

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``grade`` command."""
    p = subparsers.add_parser(
        "grade",
        help="grade submissions against a rubric",
        description="Grade submissions (JSONL: submission or messages, id, query, reference) "
        "against a rubric; write one EvaluationReport per line, in input order. With "
        "--pairwise, compare pairs (submission_a, submission_b) in both orders; with --group, "
        "rank the submissions of each line against each other.",
        epilog="Exit codes: 0 graded (items whose judges failed are recorded in their "
        "reports, without a score); 1 a usage or input error, or no item could be graded "
        "(-o then keeps what it held); 2 bad command-line usage; 3 more judge calls than the "
        "limit (--yes, --max-calls); 130 interrupted; 141 stdout closed.",
    )
    p.add_argument("rubric", help="rubric file (YAML or JSON, any supported format)")
    p.add_argument(
        "input",
        nargs="?",
        help="JSONL file of submissions ('submission': text, or 'messages': a conversation), "
        "- for stdin, or a Hugging Face dataset (a save_to_disk folder, .parquet, .arrow, "
        "hf:NAME)",
    )
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
    p.add_argument(
        "--grader",
        choices=LazyChoices("rubricjudge._graders._spec", "GRADER_KINDS"),
        default="per-criterion",
        metavar="KIND",
        help=GRADER_HELP + " (%(choices)s)",
    )
    p.add_argument("--concurrency", type=int, default=8, help="judge calls at once (default 8)")
    p.add_argument(
        "--run-dir",
        help="commit every judgment and item here as it arrives (needed for --resume)",
    )
    p.add_argument(
        "--resume", action="store_true", help="continue the run in --run-dir; -o gets every item"
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="run although --run-dir holds a run of other inputs (its item results are dropped)",
    )
    p.add_argument(
        "--max-examples",
        type=int,
        default=None,
        metavar="N",
        help="show at most N of a criterion's calibration examples (default: all)",
    )
    p.add_argument("--base-url", metavar="URL[,URL...]", help=BASE_URL_HELP)
    p.add_argument(
        "--dry-run", action="store_true", help="count calls, tokens and cost; call nothing"
    )
    g = p.add_argument_group("pairs and groups")
    g.add_argument(
        "--pairwise",
        action="store_true",
        help="compare pairs: each line has submission_a and submission_b (and id, query, "
        "reference, label); every comparison is asked in both orders",
    )
    g.add_argument(
        "--group",
        action="store_true",
        help="rank groups: each line has submissions: [...] (and id, query, reference); each "
        "submission gets a reward in [0, 1] and a rank",
    )
    g.add_argument(
        "--group-method",
        choices=["criteria", "listwise"],
        default="criteria",
        help="criteria: grade each submission, break equal scores pairwise (default); "
        "listwise: one prompt ranks them all, asked in two orders",
    )
    g.add_argument(
        "--tie-break",
        choices=["holistic", "per-criterion", "none"],
        default="holistic",
        help="how --group-method criteria orders equal scores (default holistic)",
    )
    add_hf_args(p, labels=False, rubric=False)
    add_cache_args(p)
    add_trust_args(p)
    add_repeat_args(p)
    add_conversation_args(p)
    add_judge_failure_arg(p)
    add_batch_args(p)
    add_call_limit_args(p)
    p.set_defaults(func=run)


def _load_rubric(path: str) -> Rubric:
    if not Path(path).is_file():
        raise ConfigError(f"rubric file {path!r} not found")

    rubric: Rubric = load_file(path)
    return rubric


class _Source:
    """Where the items come from: ``--text``, a file (checked first, then streamed) or stdin."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.text: str | None = args.text
        self.hf: tuple[Any, str, Any] | None = None
        self.query: str | None = args.query
        self.path: Path | None = None
        self.total: int | None = None
        self.fingerprint = ""
        if args.text is not None:
            if args.input:
                raise ConfigError("give an INPUT file or --text, not both")
            self.total = 1
            self.fingerprint = fingerprint([args.text, args.query])
            return
        if not args.input:
            raise ConfigError("give an INPUT file (JSONL, or - for stdin) or --text")
        if args.input == "-":
            if args.run_dir:
                raise ConfigError("--run-dir needs an INPUT file: stdin cannot be read again")
            return
        from .._datasets._hf import is_hf_source

        if is_hf_source(args.input):
            self._open_hf(args)
            return
        self.path = Path(args.input)
        if not self.path.is_file():
            raise ConfigError(f"input file {args.input!r} not found")
        self._check(unique_ids=bool(args.run_dir))

    def _open_hf(self, args: argparse.Namespace) -> None:
        """A Hugging Face dataset as input: its rows through the column mapping, checked first."""
        from .._datasets._hf import Columns, load_hf

        ds, name = load_hf(args.input, split=args.split)
        columns = Columns(
            submission=args.submission_column,
            id=args.id_column,
            query=args.query_column,
            reference=args.reference_column,
            flags=HF_FLAGS,
        )
        self.hf = (ds, name, columns)
        seen: dict[str, int] = {}
        parts: list[Any] = []
        for it in self.items():
            first = seen.setdefault(it.id, it.line)
            if args.run_dir and first != it.line:
                raise ConfigError(
                    f"{name} row {it.line}: the id {it.id!r} of row {first} again; "
                    "with --run-dir every item needs its own id (--id-column)"
                )
            parts.append([it.id, it.submission, it.query, it.reference])
        self.total = len(parts)
        self.fingerprint = fingerprint(parts)

    def _check(self, *, unique_ids: bool) -> None:
        # every line is checked before the first judge call, and counted for the bar
        assert self.path is not None
        total = 0
        seen: dict[str, int] = {}
        h = hashlib.sha256()
        for it in self.items():
            total += 1
            for part in getattr(it.submission, "media", ()):  # a changed image is new input
                h.update(part.sha256.encode())
            if unique_ids:
                first = seen.setdefault(it.id, it.line)
                if first != it.line:
                    raise ConfigError(
                        f"{self.path} line {it.line}: the id {it.id!r} of line {first} again; "
                        "with --run-dir every item needs its own id"
                    )
        self.total = total
        with self.path.open("rb") as f:
            while block := f.read(1 << 20):
                h.update(block)
        self.fingerprint = h.hexdigest()[:16]

    def items(self) -> Iterator[Item]:
        """Yield the items, reading one line at a time."""
        if self.text is not None:
            yield Item(line=0, id="1", submission=self.text, query=self.query, reference=None)
        elif self.hf is not None:
            from .._datasets._hf import iter_hf_rows

            for n, ident, sub, query, ref in iter_hf_rows(*self.hf):
                yield Item(line=n, id=ident, submission=sub, query=query, reference=ref)
        elif self.path is None:
            yield from iter_items(_strict_stdin(), "<stdin>")
        else:
            with self.path.open(encoding="utf-8") as f:
                yield from iter_items(f, str(self.path), str(self.path))


def _strict_stdin() -> IO[str]:
    """Stdin decoded as strict UTF-8.

    Python reads stdin with ``errors="surrogateescape"`` under a C or POSIX locale, so
    a byte that is not UTF-8 would reach the judge (or the JSON parser, reported as
    "not valid JSON") instead of being reported as what it is.
    """
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # already text (a test's StringIO)
        return sys.stdin
    return io.TextIOWrapper(buffer, encoding="utf-8", errors="strict")


async def _write_reports(
    args: argparse.Namespace,
    rubric: Rubric,
    grader: Grader,
    source: _Source,
    out: IO[str],
    *,
    flush: bool = True,
) -> Tally:
    """Grade every item through the runs layer's driver; write each report as one line.

    ``flush`` sends each line on at once (stdout, a pipe); a temporary ``-o`` file,
    which nobody reads before it is renamed, is not flushed line by line.
    """
    from .._runs._drive import RunOptions, grade_items

    tally = Tally()

    def emit(report: EvaluationReport) -> None:
        tally.add(report)
        data = report.to_jsonable()
        data = {"id": data.pop("id", None), **data}  # the id first, for people reading
        out.write(json.dumps(data, ensure_ascii=False) + "\n")
        if flush:
            out.flush()

    options = RunOptions(
        run_dir=args.run_dir,
        resume=args.resume,
        force=args.force,
        concurrency=max(1, args.concurrency),
        batch=batch_options(args),
    )
    tally.endpoints = await grade_items(
        rubric,
        source.items,
        grader,
        emit,
        total=source.total,
        input_fingerprint=source.fingerprint,
        options=options,
    )
    return tally


def run(args: argparse.Namespace) -> int:
    """Run ``rubricjudge grade``."""
    if args.resume and not args.run_dir:
        raise ConfigError("--resume needs --run-dir (the directory of the run to continue)")
    rubric = _load_rubric(args.rubric)
    if args.pairwise or args.group:
        from ._grade_compare import run_compare

        return run_compare(args, rubric)
    grader = build_grader(args)
    if getattr(args, "batch_api", False):
        from .._runs._batch_options import check_batchable

        check_batchable(grader)
        if not args.dry_run:
            batch_options(args)  # refuses a missing --run-dir before any input is read
    source = _Source(args)
    note = uncalibrated_note(args)
    if note:
        print(note, file=sys.stderr)
    if args.dry_run:
        work = ((rubric, it.submission, it.query, it.reference) for it in source.items())
        return dry_run(args, grader, work)
    if source.total is not None:  # a file or --text: counted first (stdin is read as it comes)
        work = ((rubric, it.submission, it.query, it.reference) for it in source.items())
        stop = check_calls(args, planned_calls(grader, work), f"{source.total} items")
        if stop is not None:
            return stop
    target = OutputFile(args.output, flag="-o") if args.output else None
    out: IO[str] = target.stream if target is not None else sys.stdout
    try:
        streamed = target is None or target.streaming
        tally = asyncio.run(_write_reports(args, rubric, grader, source, out, flush=streamed))
        graded = not (tally.items and tally.not_graded == tally.items)
        if target is not None and graded:  # otherwise what the user had at -o stays
            target.commit()
    finally:
        if target is not None:
            target.discard()
    print(tally.text(judges=", ".join(judge_names(args)), grader=args.grader), file=sys.stderr)
    if not graded:
        kept = f"; {args.output} was left as it was" if target and not target.streaming else ""
        print(
            f"rubricjudge: error: no item could be graded (see the errors above){kept}",
            file=sys.stderr,
        )
        return 1
    return 0
