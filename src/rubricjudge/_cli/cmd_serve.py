"""``rubricjudge serve``: the scoring server (HTTP API over a rubric directory or registry)."""

from __future__ import annotations

import argparse
import copy
from typing import Any

from .._errors import ConfigError
from .._rewards._batch import DEFAULT_NEUTRAL, ON_FAILURE
from .._server._settings import DEFAULT_TIMEOUT_S, ServerSettings
from .._server._sources import DirectorySource, FileSource, RegistrySource
from ._grader_args import add_judge_failure_arg
from ._trust_args import (
    BASE_URL_HELP,
    add_cache_args,
    add_trust_args,
    base_url_option,
    cache_options,
    trust_options,
)

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]

DESCRIPTION = """\
Serve rubrics over HTTP: GET /health, GET /rubrics, GET /rubrics/{id},
POST /score, POST /score/batch, GET /openapi.json, and POST /get_reward
(OpenRLHF's remote reward model protocol: see docs/rl-training.md).

Rubrics come from --rubric (one file), --rubrics-dir (files directly in it, by
file stem) or --db (the rubric registry); never from a path in a request. Every
endpoint but /health and /openapi.json needs "Authorization: Bearer <token>",
the token read from --token-file or $RUBRICJUDGE_SERVE_TOKEN (/get_reward also
takes ?token=<token> in the URL, for trainers that send no headers). --no-auth
turns that off, and is refused unless --host is a loopback address.
"""


def register(subparsers: Any) -> None:
    """Add the ``serve`` command."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="run the scoring server",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--rubric", metavar="FILE", help="serve this rubric; /get_reward grades with it"
    )
    where.add_argument("--rubrics-dir", metavar="DIR", help="serve the rubric files in DIR")
    where.add_argument("--db", metavar="URL", help="serve the rubrics of this registry")
    p.add_argument("--token-file", metavar="F", help="file holding the bearer token")
    p.add_argument("--no-auth", action="store_true", help="no token (only with a loopback --host)")
    p.add_argument("--judge", default="local", help="judge spec (default: local)")
    p.add_argument("--base-url", metavar="URL[,URL...]", help=BASE_URL_HELP)
    add_cache_args(p)
    p.add_argument(
        "--max-body-bytes", type=int, default=1024 * 1024, help="largest body (default 1 MiB)"
    )
    p.add_argument("--max-batch", type=int, default=64, help="most items per batch (default 64)")
    p.add_argument(
        "--concurrency",
        type=int,
        default=8,
        help="items of a /score/batch graded at once, and /get_reward rollouts graded at "
        "once across all requests (default 8)",
    )
    p.add_argument(
        "--judge-concurrency",
        type=int,
        metavar="N",
        help="judge calls at once across all requests (default: the judge's own limit, "
        "32 for a provider)",
    )
    p.add_argument(
        "--on-failure",
        choices=ON_FAILURE,
        default="error",
        help="/get_reward, a rollout the judge could not score: error (the request fails, "
        "the default), skip (its reward is null) or neutral (--neutral-reward)",
    )
    add_judge_failure_arg(p)
    p.add_argument(
        "--neutral-reward",
        type=float,
        default=DEFAULT_NEUTRAL,
        metavar="X",
        help="the reward of a failed rollout with --on-failure neutral "
        f"(default {DEFAULT_NEUTRAL:g})",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help="longest a request may grade before it is answered 504 "
        f"(default {DEFAULT_TIMEOUT_S:g})",
    )
    add_trust_args(p)
    p.add_argument(
        "--reward-reasons",
        action="store_true",
        help="/get_reward: ask why for the criteria that cost points, as /score does (off: "
        "nobody reads a reward's reasons, and each is one more judge call)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the settings, then serve until interrupted."""
    from .._server._run import serve

    settings = server_settings(args)
    auth = "bearer token" if settings.token else "no authentication (loopback only)"
    where = settings.source.description
    banner = f"rubricjudge: serving {where} on http://{args.host}:{args.port} ({auth})"
    serve(settings, args.host, args.port, banner=banner)
    return 0


def server_settings(args: argparse.Namespace) -> Any:
    """The :class:`ServerSettings` the flags ask for (checked; nothing is served yet)."""
    from .._graders._criterion import CriterionGrader
    from .._server._run import auth_token

    if not 0 < args.port < 65536:
        raise ConfigError(f"--port {args.port!r} is not a TCP port (1-65535)")
    for flag, value in (
        ("--max-body-bytes", args.max_body_bytes),
        ("--max-batch", args.max_batch),
        ("--concurrency", args.concurrency),
        ("--timeout", args.timeout),
        ("--judge-concurrency", 1 if args.judge_concurrency is None else args.judge_concurrency),
    ):
        if not value > 0:  # checked here so the message names the flag
            raise ConfigError(f"{flag} {value!r} must be a positive number")
    token = auth_token(args.host, token_file=args.token_file, no_auth=args.no_auth)
    source: Any
    if args.rubric:
        source = FileSource(args.rubric)
    elif args.rubrics_dir:
        source = DirectorySource(args.rubrics_dir)
    else:
        source = RegistrySource(args.db)
    judge_options = cache_options(args)
    if args.base_url:
        judge_options["base_url"] = base_url_option(args.base_url)
    grader = CriterionGrader(
        judge=args.judge,
        concurrency=args.judge_concurrency,
        judge_options=judge_options,
        judge_failure=args.judge_failure,
        **trust_options(args, "per-criterion"),
    )
    grader.members()  # the judges are built once: the reward grader below shares them
    reward_grader = copy.copy(grader)
    reward_grader.reasons = bool(args.reward_reasons) and grader.reasons
    return ServerSettings(
        source=source,
        grader=grader,
        reward_grader=reward_grader,
        token=token,
        max_body_bytes=args.max_body_bytes,
        max_batch=args.max_batch,
        concurrency=args.concurrency,
        timeout_s=args.timeout,
        default_rubric=source.rubric_id if args.rubric else None,
        on_failure=args.on_failure,
        neutral_value=args.neutral_reward,
    )
