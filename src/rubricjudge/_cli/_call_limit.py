"""Before a large run: say how many judge calls it will make, and past a limit stop.

A ``--group`` of 200 submissions makes 40,800 judge calls and ``--repeats 1000`` a
thousand per criterion: a typo in a flag can cost a day of a local model or a large
bill. So ``grade`` and ``evaluate`` count the calls first (as ``--dry-run`` does,
calling nothing). From ``NOTE_AT`` calls the count is printed on stderr; past
``DEFAULT_LIMIT`` the run is refused (exit ``EXIT_TOO_MANY``) unless ``--yes`` is
given or ``--max-calls N`` allows that many. ``--max-calls N`` is also a cap below
the default: a run over N calls is refused even with ``--yes``. Nothing ever asks
on the terminal: a script behaves as a person at a terminal does.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._graders._base import Grader

from .._errors import ConfigError

__all__ = [
    "DEFAULT_LIMIT",
    "EXIT_TOO_MANY",
    "NOTE_AT",
    "add_call_limit_args",
    "check_calls",
    "planned_calls",
]

NOTE_AT = 2_000
DEFAULT_LIMIT = 20_000
EXIT_TOO_MANY = 3


def add_call_limit_args(p: argparse.ArgumentParser) -> None:
    """Add ``--yes`` and ``--max-calls``."""
    g = p.add_argument_group("large runs")
    g.add_argument(
        "--yes",
        action="store_true",
        help=f"go ahead with a run of more than {DEFAULT_LIMIT:,} judge calls (without it such "
        f"a run is refused, exit {EXIT_TOO_MANY}, before any call)",
    )
    g.add_argument(
        "--max-calls",
        type=int,
        metavar="N",
        help=f"refuse a run of more than N judge calls (exit {EXIT_TOO_MANY}), above or below "
        f"the default limit of {DEFAULT_LIMIT:,}; applies with --yes too",
    )


def planned_calls(grader: Grader, work: Iterable[tuple[Any, ...]]) -> int:
    """The judge calls grading ``work`` takes, counted by ``grader.plan`` (nothing is called).

    ``work`` yields (rubric, submission, query, reference) tuples. Re-asks after a
    failure are not counted.
    """
    calls = 0
    for rubric, submission, query, reference in work:
        plan = grader.plan(rubric, submission, query=query, reference_submission=reference)
        calls += plan.judge_calls
    return calls


def check_calls(args: argparse.Namespace, calls: int, what: str) -> int | None:
    """Say the count of a large run; refuse one past the limit.

    ``what`` says what is graded ("40 items", "200 groups"). Returns None to go on,
    or the exit code after printing why not.

    Raises:
        ConfigError: ``--max-calls`` is not a positive number.
    """
    cap = getattr(args, "max_calls", None)
    if cap is not None and cap < 1:
        raise ConfigError(f"--max-calls {cap!r} must be at least 1")
    limit = cap if cap is not None else (None if getattr(args, "yes", False) else DEFAULT_LIMIT)
    if limit is not None and calls > limit:
        how = (
            f"give --max-calls {calls} (or more) to allow it"
            if cap is not None
            else f"give --yes (or --max-calls {calls}) to go ahead"
        )
        print(
            f"rubricjudge: error: this run would make {calls:,} judge calls ({what}), more than "
            f"the limit of {limit:,}; nothing was called. Check --repeats, --judges and the "
            f"input (--dry-run shows the tokens and cost), then {how}",
            file=sys.stderr,
        )
        return EXIT_TOO_MANY
    if calls >= NOTE_AT:
        print(
            f"rubricjudge: this run makes up to {calls:,} judge calls ({what}; answers cached "
            "or already in --run-dir are not asked again)",
            file=sys.stderr,
        )
    return None
