"""``grade --pairwise`` and ``grade --group``: compare pairs, rank groups, one JSON line each.

The input is checked line by line first, then read again as it is graded by a
fixed pool of workers; results are written in input order, each line flushed. A
summary goes to stderr: position bias and consistency for pairs, rewards for
groups, and the judge's calls, tokens and cost.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from typing import IO, Any, cast

from .._errors import ConfigError
from .._graders._group import GroupRanker
from .._graders._pairwise import PairwiseGrader
from .._judges._cost import estimate_cost
from .._model._group import GroupReport
from .._model._pairwise import PairwiseReport
from .._model._rubric import Rubric
from .._outfile import OutputFile
from .._runs._pool import run_pool
from .._stats._pairwise_stats import PairwiseTally
from ._call_limit import check_calls
from ._compare_io import GroupItem, PairItem, iter_groups, iter_pairs, read_source
from ._grader_args import build_grader, grader_spec, judge_names

__all__ = ["check_compare_args", "run_compare"]


def check_compare_args(args: argparse.Namespace) -> None:
    """Refuse the flags ``--pairwise`` and ``--group`` cannot honour.

    Raises:
        ConfigError: naming the flags.
    """
    flag = "--pairwise" if args.pairwise else "--group"
    if args.pairwise and args.group:
        raise ConfigError("give --pairwise or --group, not both")
    if args.text is not None:
        raise ConfigError(f"{flag} reads an INPUT file; --text grades one submission")
    unsupported = [
        name
        for name, on in (
            ("--run-dir", bool(args.run_dir)),
            ("--resume", args.resume),
            ("--batch-api", bool(getattr(args, "batch_api", False))),
        )
        if on
    ]
    if unsupported:
        raise ConfigError(
            f"{', '.join(unsupported)} cannot be used with {flag} yet: comparisons are not "
            "resumable; run without them"
        )
    if args.pairwise:
        per_item = [
            name
            for name, on in (
                ("--calibration", bool(getattr(args, "calibration", None))),
                ("--escalate-to", bool(args.escalate_to)),
                ("--max-examples", args.max_examples is not None),
            )
            if on
        ]
        if per_item:
            raise ConfigError(
                f"{', '.join(per_item)} apply to grading one submission at a time, not to "
                "--pairwise comparisons"
            )
    if args.pairwise and args.grader == "one-shot":
        raise ConfigError(
            "--pairwise compares per criterion (--grader per-criterion) or over the whole "
            "rubric (--grader holistic), not --grader one-shot"
        )


def _pairwise_grader(args: argparse.Namespace, kind: str) -> PairwiseGrader:
    spec = grader_spec(argparse.Namespace(**{**vars(args), "grader": "per-criterion"}))
    options = {
        k: v
        for k, v in spec.options.items()
        if k in ("concurrency", "judge_options", "repeats", "repeat_temperature")
        or k in ("repeat_variation",)
    }
    if args.verdict_method != "auto":
        options["verdict_method"] = args.verdict_method
    if spec.judges is not None:
        return PairwiseGrader(judges=list(spec.judges), mode=kind, **options)
    return PairwiseGrader(spec.judge or "local", mode=kind, **options)


def _group_ranker(args: argparse.Namespace) -> GroupRanker:
    grader = build_grader(args)
    pairwise = _pairwise_grader(
        args, "per-criterion" if args.tie_break == "per-criterion" else "holistic"
    )
    return GroupRanker(
        method=args.group_method,
        tie_break=args.tie_break,
        grader=grader,
        pairwise=pairwise,
        repeats=args.repeats,
    )


def _count(
    args: argparse.Namespace,
    rubric: Rubric,
    grader: PairwiseGrader | GroupRanker,
    items: Any,
    *,
    ties: bool = False,
) -> tuple[int, int, int]:
    """Pairs or groups, judge calls and prompt tokens of the run; calls nothing.

    Tie-breaks depend on the scores: ``ties`` counts the most there can be (every
    submission of a group tied with every other), else none.
    """
    calls = tokens = n = 0
    for it in items():
        n += 1
        if args.pairwise:  # run_compare built a PairwiseGrader, else a GroupRanker
            plan = cast("PairwiseGrader", grader).plan_pair(rubric, it.a, it.b, query=it.query)
        else:
            ranker = cast("GroupRanker", grader)
            plan = ranker.pairwise.plan_pair(rubric, it.submissions[0], it.submissions[0])
            per = ranker.grader.plan(rubric, it.submissions[0], query=it.query)
            k = len(it.submissions)
            if args.group_method == "listwise":
                plan = type(plan)(2 * ranker.pairwise.n_judges, plan.prompt_tokens * k // 2)
            else:  # every submission graded, and with ``ties`` every pair compared
                pairs = k * (k - 1) // 2 if ties and args.tie_break != "none" else 0
                plan = type(plan)(
                    per.judge_calls * k + plan.judge_calls * pairs,
                    per.prompt_tokens * k + plan.prompt_tokens * pairs,
                )
        calls += plan.judge_calls
        tokens += plan.prompt_tokens
    return n, calls, tokens


def _dry_run(
    args: argparse.Namespace, rubric: Rubric, grader: PairwiseGrader | GroupRanker, items: Any
) -> int:
    n, calls, tokens = _count(args, rubric, grader, items)
    names = judge_names(args)
    costs = [estimate_cost(j, tokens // len(names), calls * 20 // len(names)) for j in names]
    cost = "unknown" if any(c is None for c in costs) else f"${sum(c or 0.0 for c in costs):.4f}"
    what = "pairs" if args.pairwise else "groups"
    extra = "" if args.pairwise or args.group_method == "listwise" else " (before tie-breaks)"
    print(
        f"dry run: {n} {what}, {calls} judge calls{extra}, about {tokens} prompt tokens, "
        f"about {cost} ({', '.join(names)})",
        file=sys.stderr,
    )
    return 0


def run_compare(args: argparse.Namespace, rubric: Rubric) -> int:
    """Run ``grade --pairwise`` or ``grade --group``; returns the exit code."""
    check_compare_args(args)
    if not args.input:
        raise ConfigError("give an INPUT file (JSONL) of pairs or groups")
    grader: PairwiseGrader | GroupRanker
    if args.pairwise:
        kind = "holistic" if args.grader == "holistic" else "per-criterion"
        grader = _pairwise_grader(args, kind)
        grader.compared(rubric)  # a criterion it cannot compare: an error before any call
        total, items = read_source(args.input, iter_pairs)
    else:
        grader = _group_ranker(args)
        total, items = read_source(args.input, iter_groups)
    if args.dry_run:
        return _dry_run(args, rubric, grader, items)
    n, calls, _ = _count(args, rubric, grader, items, ties=True)
    what = f"{n} pairs" if args.pairwise else f"{n} groups"
    if not args.pairwise and args.group_method == "criteria" and args.tie_break != "none":
        what += ", if every score ties"
    stop = check_calls(args, calls, what)
    if stop is not None:
        return stop
    target = OutputFile(args.output, flag="-o") if args.output else None
    out: IO[str] = target.stream if target is not None else sys.stdout
    try:
        tally, summary = asyncio.run(_run(args, rubric, grader, items, total, out))
        graded = not (tally.items and tally.graded == 0)
        if target is not None and graded:  # otherwise what the user had at -o stays
            target.commit()
    finally:
        if target is not None:
            target.discard()
    print(_summary_text(args, tally, summary), file=sys.stderr)
    if not graded:
        what = "pair could be compared" if args.pairwise else "group could be ranked"
        kept = f"; {args.output} was left as it was" if target and not target.streaming else ""
        print(f"rubricjudge: error: no {what} (see the errors above){kept}", file=sys.stderr)
        return 1
    return 0


class _Tally:
    """Counts what was written, and keeps the pairwise numbers."""

    def __init__(self, pairwise: bool) -> None:
        self.items = self.graded = self.failed = 0
        self.pairs = PairwiseTally() if pairwise else None
        self.rewards: list[float] = []
        self.failures: list[str] = []  # the first items not compared or ranked, with why

    def add(self, report: Any) -> None:
        self.items += 1
        if self.pairs is not None:
            self.pairs.add(report)
            done = report.preferred is not None
        else:
            placed = [r for r in report.rewards if r is not None]
            done = bool(placed)
            self.rewards.extend(placed)
        self.graded += int(done)
        if not done:
            self.failed += 1
            if len(self.failures) < 3:
                self.failures.append(f"{report.id}: {report.error or 'no result'}")


async def _run(
    args: argparse.Namespace,
    rubric: Rubric,
    grader: PairwiseGrader | GroupRanker,
    items: Callable[[], Any],
    total: int,
    out: IO[str],
) -> tuple[_Tally, Any]:
    tally = _Tally(args.pairwise)

    def emit(report: Any) -> None:
        tally.add(report)
        data = report.to_jsonable()
        data.pop("reports", None)  # a group's per-submission reports: their scores are kept
        data = {"id": data.pop("id", None), **data}
        out.write(json.dumps(data, ensure_ascii=False) + "\n")
        out.flush()

    async def work(bound: Any, it: Any) -> Any:
        if isinstance(it, PairItem):
            return await bound.compare(
                rubric,
                it.a,
                it.b,
                query=it.query,
                reference_submission=it.reference,
                item_id=it.id,
                label=it.label,
            )
        assert isinstance(it, GroupItem)
        return await bound.rank(
            rubric,
            it.submissions,
            query=it.query,
            reference_submission=it.reference,
            item_id=it.id,
        )

    def failed(it: Any, error: str) -> Any:
        if isinstance(it, PairItem):
            return PairwiseReport(id=it.id, label=it.label, error=error)
        n = len(it.submissions)
        return GroupReport(id=it.id, rewards=[None] * n, ranks=[None] * n, error=error)

    def is_failure(report: Any) -> bool:
        return bool(report.error) and (
            getattr(report, "preferred", None) is None
            and not any(r is not None for r in getattr(report, "rewards", []))
        )

    summary = await run_pool(
        grader,
        items(),
        work,
        emit,
        key=lambda it: it.id,
        failed=failed,
        is_failure=is_failure,
        total=total,
        concurrency=args.concurrency,
    )
    return tally, summary


def ties_warning(judges: list[str], compared: int, preferred: dict[str, int]) -> str | None:
    """A warning when every compared pair came out a tie, with what to do instead.

    The local judge cannot tell two answers apart in one prompt (docs/graders.md):
    its comparisons are ties in both modes. Another judge's all-tie run is named
    from three pairs on (one or two ties can be the truth).
    """
    local = any(j == "local" or j.startswith("local/") for j in judges)
    if not compared or preferred.get("tie", 0) != compared or (compared < 3 and not local):
        return None
    who = (
        "the local judge cannot compare two answers in one prompt"
        if local
        else "the judge did not separate any pair"
    )
    return (
        f"warning: every one of the {compared} compared pairs is a tie: {who}. Grade each "
        "answer on its own instead (rubricjudge grade RUBRIC ANSWERS.jsonl, one line per "
        "answer) and compare the scores"
    )


def _summary_text(args: argparse.Namespace, tally: _Tally, summary: Any) -> str:
    judges = ", ".join(judge_names(args))
    if tally.pairs is not None:
        mode = "holistic" if args.grader == "holistic" else "per-criterion"
        lines = [f"compared {tally.items} pairs ({mode}, both orders), judge {judges}"]
        stats = tally.pairs.stats()
        lines.append(stats.to_text())
        warning = ties_warning(judge_names(args), stats.compared, stats.preferred)
        if warning:
            lines.append(warning)
    else:
        lines = [f"ranked {tally.items} groups ({args.group_method}), judge {judges}"]
        if tally.rewards:
            mean = sum(tally.rewards) / len(tally.rewards)
            lines.append(f"rewards: {len(tally.rewards)} placed, mean {mean:.3f}")
    tokens = summary.tokens.total_tokens if summary.tokens else 0
    cost = "unknown" if summary.cost is None else f"${summary.cost:.4f}"
    lines.append(f"judge calls: {summary.judge_calls}  tokens: {tokens}  cost: {cost}")
    if summary.errors:
        lines.append(f"judge calls that failed: {summary.errors.get('judge', 0)} (recorded)")
    if tally.failed:
        what = "pairs not compared" if tally.pairs is not None else "groups not ranked"
        lines.append(f"{what}: {tally.failed}")
        lines.extend(f"  {f}" for f in tally.failures)
    return "\n".join(lines)
