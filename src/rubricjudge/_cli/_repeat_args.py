"""``--repeats`` and its companions, shared by ``grade`` and ``evaluate``.

Each judgment is asked N times and the most common answer counts; the variation
between repeats and the tie policy are described in ``_graders._repeats`` and
docs/graders.md#repeats-and-stability.
"""

from __future__ import annotations

import argparse
from typing import Any

from .._errors import ConfigError

__all__ = ["add_repeat_args", "repeat_options"]


def add_repeat_args(p: argparse.ArgumentParser) -> None:
    """Add the options to ``p``."""
    g = p.add_argument_group("repeats and stability")
    g.add_argument(
        "--repeats",
        type=int,
        default=1,
        metavar="N",
        help="ask each judgment N times and keep the most common answer; each criterion's "
        "flip rate is recorded (default 1)",
    )
    g.add_argument(
        "--repeat-temperature",
        type=float,
        default=0.7,
        metavar="T",
        help="sampling temperature of repeats that vary it (default 0.7)",
    )
    g.add_argument(
        "--repeat-variation",
        choices=["auto", "temperature", "order"],
        default="auto",
        help="what changes between repeats: auto (temperature for openai/ and litellm/ "
        "judges without a calibration, else the order of the allowed answers), "
        "temperature, or order",
    )


def repeat_options(args: argparse.Namespace, kind: str) -> dict[str, Any]:
    """The grader arguments the options ask for (none when not repeating).

    Raises:
        ConfigError: a count below 1, or repeats with a grader that cannot repeat.
    """
    n = getattr(args, "repeats", 1)
    if n < 1:
        raise ConfigError(f"--repeats {n!r} must be at least 1")
    if n == 1:
        return {}
    if kind not in ("per-criterion", "pairwise"):
        raise ConfigError(
            f"--repeats works with --grader per-criterion (and with --pairwise or --group), "
            f"not --grader {kind}"
        )
    return {
        "repeats": n,
        "repeat_temperature": args.repeat_temperature,
        "repeat_variation": args.repeat_variation,
    }
