"""What ``grade`` and ``evaluate`` share: the grader their flags ask for, and the dry run."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError
from .._model._scoring import JUDGE_FAILURE_CHOICES
from ._batch_args import batch_saving
from ._repeat_args import repeat_options
from ._trust_args import base_url_option, cache_options, cascade_estimate, trust_options

if TYPE_CHECKING:
    from .._graders._base import Grader
    from .._graders._spec import GraderSpec

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = [
    "GRADER_HELP",
    "add_conversation_args",
    "add_judge_failure_arg",
    "build_grader",
    "conversation_options",
    "dry_run",
    "grader_spec",
    "judge_failure_options",
    "judge_names",
    "uncalibrated_note",
]


GRADER_HELP = (
    "per-criterion: one question per criterion (default; the trust options apply); "
    "one-shot: every criterion in one call; holistic: one overall score (docs/graders.md)"
)


def add_conversation_args(p: argparse.ArgumentParser) -> None:
    """``--conversation-budget`` and ``--over-budget``: how much of a conversation judges see."""
    g = p.add_argument_group("conversations (items with 'messages')")
    g.add_argument(
        "--conversation-budget",
        type=int,
        metavar="TOKENS",
        help="show judges at most this many tokens (characters / 4) of a conversation "
        "(default: each judge's own: local 2496, others 32000; see docs/conversations.md)",
    )
    g.add_argument(
        "--over-budget",
        choices=["error", "elide"],
        default="error",
        help="a conversation past the budget: error (its judged criteria fail, recorded; "
        "the default) or elide (keep the first and last turns, mark the rest elided)",
    )


def add_judge_failure_arg(p: argparse.ArgumentParser) -> None:
    """``--judge-failure``: what an item whose judge failed on a weighted criterion scores."""
    p.add_argument(
        "--judge-failure",
        choices=JUDGE_FAILURE_CHOICES,
        default="no_score",
        help="an item whose judge failed on a criterion that carries weight: no_score (the "
        "default: it is failed, its errors listed) or partial (the lowest score the decided "
        "criteria allow, flagged partial; see docs/scoring.md)",
    )


def judge_failure_options(args: argparse.Namespace) -> dict[str, Any]:
    """The grader option of ``--judge-failure`` (empty at its default, as runs recorded it)."""
    value = getattr(args, "judge_failure", "no_score")
    return {} if value == "no_score" else {"judge_failure": value}


def conversation_options(args: argparse.Namespace) -> dict[str, Any]:
    """The grader options of the conversation flags (empty when left at their defaults)."""
    out: dict[str, Any] = {}
    budget = getattr(args, "conversation_budget", None)
    if budget is not None:
        if budget < 1:
            raise ConfigError(f"--conversation-budget {budget!r} must be at least 1 token")
        out["conversation_budget"] = budget
    if getattr(args, "over_budget", "error") != "error":
        out["over_budget"] = args.over_budget
    return out


def _judge_specs(args: argparse.Namespace) -> list[Any]:
    from .._graders._ensemble import JudgeSpec
    from .._judges._spec import weighted_specs

    if not args.judges:
        return []
    return [
        JudgeSpec(name) if weight is None else JudgeSpec(name, weight=weight)
        for name, weight in weighted_specs(args.judges)
    ]


def judge_names(args: argparse.Namespace) -> list[str]:
    """The judge specs the flags name (``--judges``' without weights), default ``local``."""
    if args.judges:
        return [getattr(s, "judge", s) for s in _judge_specs(args)]
    return [args.judge or "local"]


def grader_spec(args: argparse.Namespace) -> GraderSpec:
    """The :class:`GraderSpec` the options ask for (plain data: a Ray actor rebuilds it)."""
    from .._graders._spec import GraderSpec

    kind = args.grader
    if args.concurrency < 1:
        raise ConfigError(f"--concurrency {args.concurrency!r} must be at least 1")
    options: dict[str, Any] = {"concurrency": args.concurrency}
    options.update(trust_options(args, kind))
    options.update(repeat_options(args, kind))
    options.update(conversation_options(args))
    options.update(judge_failure_options(args))
    max_examples = getattr(args, "max_examples", None)  # `evaluate` has no --max-examples
    if max_examples is not None and kind != "holistic":
        options["max_examples"] = max_examples
    judge_options = cache_options(args)
    if args.base_url:
        judge_options["base_url"] = base_url_option(args.base_url)
    if judge_options:
        options["judge_options"] = judge_options
    judges = _judge_specs(args)
    if judges and args.judge:
        raise ConfigError("give --judge or --judges, not both")
    if judges:
        if kind != "holistic":
            # with equal weights these equal majority / mean / mode; SPEC=WEIGHT then counts
            options.update(
                aggregation="weighted",
                ordinal_aggregation="weighted_mean",
                nominal_aggregation="weighted_mode",
            )
        return GraderSpec(kind, judges=judges, options=options)
    return GraderSpec(kind, args.judge or "local", options=options)


def uncalibrated_note(args: argparse.Namespace, dataset: str = "DATASET") -> str | None:
    """One line for a per-criterion run of the local judge without ``--calibration``.

    The local judge ships a calibration fitted on other rubrics; on a new one it can
    be far off (a criterion MET for most answers that lack it), and a calibration
    fitted on 10-20 of the user's own labels is what fixes that. None otherwise.
    """
    if args.grader != "per-criterion" or getattr(args, "calibration", None):
        return None
    if not any(name == "local" or name.startswith("local/") for name in judge_names(args)):
        return None
    return (
        "note: the local judge is not calibrated on your labels, and on a new rubric it can "
        f"be far off; label 10-20 answers (rubricjudge label {dataset}), fit a calibration "
        f"(rubricjudge calibrate {dataset} --train 20 -o cal.json) and grade with "
        "--calibration cal.json"
    )


def build_grader(args: argparse.Namespace) -> Grader:
    """Build the grader the ``--grader`` / ``--judge`` / ``--judges`` options ask for."""
    return grader_spec(args).build()


def dry_run(args: argparse.Namespace, grader: Grader, work: Iterable[tuple[Any, ...]]) -> int:
    """Print the calls, tokens and dollars of grading ``work``; call nothing.

    ``work`` yields (rubric, submission, query, reference) tuples; with ``--batch-api``
    the cost at batch prices and the saving are printed too.
    """
    from .._runs._plan import estimate_run

    names = judge_names(args)
    est = estimate_run(grader, work, names, args.grader)
    costs = est.costs
    cost = "unknown" if any(c is None for c in costs) else f"${sum(c or 0.0 for c in costs):.4f}"
    print(
        f"dry run: {est.items} items, {est.calls} judge calls, about {est.prompt_tokens} prompt "
        f"tokens + {est.completion_tokens} completion tokens, about {cost} ({', '.join(names)})",
        file=sys.stderr,
    )
    if getattr(args, "batch_api", False):
        print(batch_saving(costs), file=sys.stderr)
    cascade = cascade_estimate(args, grader, est.calls, est.prompt_tokens)
    if cascade:
        print(cascade, file=sys.stderr)
    return 0
