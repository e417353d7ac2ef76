"""``--batch-api``, ``--batch-poll-s``, ``--batch-size``: shared by ``evaluate`` and ``grade``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from .._errors import ConfigError

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["add_batch_args", "batch_options", "batch_saving"]


def add_batch_args(p: argparse.ArgumentParser) -> None:
    """Add the options to ``p``."""
    g = p.add_argument_group("provider batch APIs (half price, answers within 24 h)")
    g.add_argument(
        "--batch-api",
        action="store_true",
        help="send the judgments through the OpenAI Batch API (openai/... judges) or "
        "Anthropic's Message Batches (anthropic/... judges) at half price; needs --run-dir; "
        "a killed run resumes with --resume by polling its batches",
    )
    g.add_argument(
        "--batch-poll-s",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds between polls of the open batches (default 30)",
    )
    g.add_argument(
        "--batch-size",
        type=int,
        default=None,
        metavar="N",
        help="requests per batch at most (default: the provider's limit, 50000 for OpenAI, "
        "100000 for Anthropic; batches are also cut at 200 MB / 256 MB)",
    )
    g.add_argument(
        "--batch-resubmit-lost",
        action="store_true",
        help="on resume, send again the requests of a batch whose create reply was lost when "
        "the provider's list cannot tell which batch it was (Anthropic; the lost batch is "
        "paid for but never read)",
    )


def batch_options(args: argparse.Namespace) -> Any:
    """The :class:`BatchOptions` the flags ask for, or None without ``--batch-api``.

    Raises:
        ConfigError: a batch flag without ``--batch-api``, or ``--batch-api`` without
            ``--run-dir``.
    """
    from .._runs._batch_options import BatchOptions

    if not getattr(args, "batch_api", False):  # a Namespace made in Python may lack them
        if (
            getattr(args, "batch_poll_s", 30.0) != 30.0
            or getattr(args, "batch_size", None) is not None
            or getattr(args, "batch_resubmit_lost", False)
        ):
            raise ConfigError(
                "--batch-poll-s, --batch-size and --batch-resubmit-lost need --batch-api"
            )
        return None
    if not args.run_dir:
        raise ConfigError(
            "--batch-api needs --run-dir: batch ids are committed there, so a killed run "
            "resumes (--resume) by polling the batches it already created"
        )
    size = {} if args.batch_size is None else {"max_requests": args.batch_size}
    return BatchOptions(
        poll_s=args.batch_poll_s,
        resubmit_lost=getattr(args, "batch_resubmit_lost", False),
        **size,
    )


def batch_saving(costs: Sequence[float | None]) -> str:
    """The dry run's line about ``--batch-api``: the cost at batch prices and the saving."""
    from .._judges._cost import BATCH_DISCOUNT

    share = f"{BATCH_DISCOUNT:.0%} of the listed price"
    if any(c is None for c in costs):
        return f"with --batch-api: {share}; the listed price is unknown, so is the saving"
    listed = sum(c or 0.0 for c in costs)
    batch = listed * BATCH_DISCOUNT
    return (
        f"with --batch-api: about ${batch:.4f} at batch prices ({share}), "
        f"saving about ${listed - batch:.4f}; answers come within 24 h"
    )
