"""Command-line options shared by ``grade``, ``evaluate`` and ``calibrate`` for trusted verdicts.

``--verdict-method``, ``--calibration``, ``--evidence`` / ``--evidence-policy`` and
the cascade's ``--escalate-to`` / ``--below-confidence`` map onto the per-criterion
grader's arguments of the same names.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError
from ._choices import LazyChoices

if TYPE_CHECKING:
    from .._graders._base import Grader

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["add_cache_args", "add_trust_args", "cache_options", "trust_options"]


def add_cache_args(p: argparse.ArgumentParser) -> None:
    """``--no-cache`` and ``--refresh-cache`` (the judge layer's response cache)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the response cache",
    )
    g.add_argument(
        "--refresh-cache",
        action="store_true",
        help="ask the judge again and overwrite what the response cache holds",
    )


def cache_options(args: argparse.Namespace) -> dict[str, Any]:
    """Judge options for the cache flags (empty when neither was given)."""
    if getattr(args, "no_cache", False):
        return {"cache": False}
    if getattr(args, "refresh_cache", False):
        return {"refresh_cache": True}
    return {}


def add_trust_args(p: argparse.ArgumentParser, *, calibration: bool = True) -> None:
    """Add the options to ``p``."""
    g = p.add_argument_group("trusted verdicts (per-criterion grader)")
    g.add_argument(
        "--verdict-method",
        choices=LazyChoices("rubricjudge._graders._options", "VERDICT_METHODS", first=["auto"]),
        default="auto",
        metavar="METHOD",
        help="reply layout: %(choices)s (default auto: "
        "the judge's own preference; see docs/trust.md)",
    )
    if calibration:
        g.add_argument(
            "--calibration",
            metavar="FILE",
            help="a calibration file written by `rubricjudge calibrate` for this judge",
        )
    g.add_argument(
        "--evidence",
        choices=["penalties", "all", "off"],
        default="penalties",
        help="which MET verdicts need a quote from the submission (default penalties)",
    )
    g.add_argument(
        "--evidence-policy",
        choices=LazyChoices("rubricjudge._graders._options", "EVIDENCE_POLICIES"),
        default="downgrade",
        metavar="POLICY",
        help="what a MET whose quote is not in the submission becomes: %(choices)s "
        "(default downgrade: UNMET)",
    )
    g.add_argument(
        "--no-reasons",
        action="store_true",
        help="with --verdict-method verdict-only, do not ask the judge why for the criteria "
        "that cost points (one short extra call each, the default)",
    )
    g.add_argument(
        "--escalate-to",
        metavar="SPEC",
        help="a stronger judge that re-answers the criteria the first judge was unsure of",
    )
    g.add_argument(
        "--below-confidence",
        type=float,
        default=0.7,
        metavar="P",
        help="escalate answers whose confidence is below P (default 0.7)",
    )


def trust_options(args: argparse.Namespace, grader: str) -> dict[str, Any]:
    """The grader arguments the options ask for (per-criterion and one-shot graders only).

    Raises:
        ConfigError: an option that the chosen ``--grader`` cannot honour.
    """
    asked = {
        "--verdict-method": args.verdict_method != "auto",
        "--calibration": bool(getattr(args, "calibration", None)),
        "--escalate-to": bool(args.escalate_to),
        "--no-reasons": bool(getattr(args, "no_reasons", False)),
    }
    if grader != "per-criterion":
        used = [flag for flag, on in asked.items() if on]
        if used:
            raise ConfigError(
                f"{', '.join(used)} work with --grader per-criterion only (not {grader})"
            )
        if grader == "one-shot":  # criteria it re-asks one by one are evidence-checked too
            return {"evidence": args.evidence, "evidence_policy": args.evidence_policy}
        return {}
    if not 0.0 <= args.below_confidence <= 1.0:
        raise ConfigError(f"--below-confidence {args.below_confidence!r} must be between 0 and 1")
    options: dict[str, Any] = {
        "verdict_method": args.verdict_method,
        "evidence": args.evidence,
        "evidence_policy": args.evidence_policy,
    }
    if getattr(args, "no_reasons", False):
        options["reasons"] = False
    if getattr(args, "calibration", None):
        options["calibration"] = args.calibration
    if args.escalate_to:
        options["escalate_to"] = args.escalate_to
        options["below_confidence"] = args.below_confidence
    return options


def cascade_estimate(
    args: argparse.Namespace, grader: Grader, calls: int, tokens: int
) -> str | None:
    """The dry run's line about the cascade: the share escalated and what it costs.

    The share is the one seen on the training answers of the calibration in use
    (``--calibration``, else the judge's own); without one it is unknown, and the
    line gives the cost of escalating everything as the upper bound.
    """
    if not getattr(args, "escalate_to", None) or not hasattr(grader, "members"):
        return None
    from .._calibration._groups import Calibration
    from .._judges._cost import estimate_cost

    calibration = getattr(grader, "calibration", None)
    if calibration is None and hasattr(grader, "default_calibration"):
        calibration = grader.default_calibration(grader.members()[0])
    share = None
    if isinstance(calibration, Calibration):
        share = calibration.share_below(args.below_confidence)
    level = args.below_confidence
    completion = calls * 40
    if share is None:
        cost = estimate_cost(args.escalate_to, tokens, completion)
        price = "unknown" if cost is None else f"${cost:.4f}"
        return (
            f"cascade: the share below confidence {level:g} is unknown (no calibration to "
            f"read it from); escalating everything would be {calls} calls to "
            f"{args.escalate_to}, about {price}"
        )
    cost = estimate_cost(args.escalate_to, int(tokens * share), int(completion * share))
    price = "unknown" if cost is None else f"${cost:.4f}"
    return (
        f"cascade: about {share:.0%} of criteria below confidence {level:g} (as on the "
        f"calibration's training answers): about {round(calls * share)} calls to "
        f"{args.escalate_to}, about {price}"
    )


BASE_URL_HELP = (
    "base URL of an OpenAI-compatible server; several, separated by commas, make a fleet "
    "(each call goes to the least-loaded healthy one)"
)


def base_url_option(value: str) -> str | tuple[str, ...]:
    """The ``base_url`` judge option for ``--base-url VALUE`` (a URL or URLs separated by commas).

    Raises:
        ConfigError: naming ``--base-url``, for an empty entry, a URL that is not http(s),
            or a URL given twice.
    """
    from .._judges._fleet import parse_base_urls

    urls = parse_base_urls(value, "--base-url")
    return value if len(urls) == 1 else urls
