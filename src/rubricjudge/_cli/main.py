"""Entry point of the ``rubricjudge`` command.

Each command lives in its own module exposing ``register(subparsers)``, which adds
a subparser and sets ``func(args) -> int``. Library usage errors become one clean
line on stderr and exit code 1 (2 for bad command-line usage, 130 when interrupted,
141 when the reader of stdout closed it, as in ``rubricjudge score ... | head``).
"""

from __future__ import annotations

# only what the interpreter has loaded already: the first lines of main() must run as
# soon as possible, so that Ctrl-C while the commands load is caught like any other
import importlib
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

__all__ = ["build_parser", "main"]

# (module, ...) in the order `rubricjudge --help` lists them
COMMANDS: tuple[str, ...] = (
    "grade",
    "validate",
    "convert",
    "schema",
    "score",
    "evaluate",
    "calibrate",
    "metrics",
    "gate",
    "report",
    "export",
    "label",
    "lint",
    "draft",
    "refine",
    "registry",
    "create_template",
    "migrate",
    "serve",
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, every command registered."""
    import argparse

    from .._version import __version__

    parser = argparse.ArgumentParser(
        prog="rubricjudge",
        description="Rubric-based evaluation of LLM outputs.",
    )
    parser.add_argument("--version", action="version", version=f"rubricjudge {__version__}")
    parser.add_argument(
        "--otel",
        action="store_true",
        help="send OpenTelemetry traces (OTLP/HTTP to $OTEL_EXPORTER_OTLP_ENDPOINT); "
        "needs rubricjudge[otel]",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"rubricjudge._cli.cmd_{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    try:  # from the first line: Ctrl-C while the commands load is no traceback either
        _catch_interrupts_here()
        return _run(argv)
    except KeyboardInterrupt:
        print("rubricjudge: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `rubricjudge ... | head` closed the pipe: stop quietly
        _silence_stdout()
        return 141


def _catch_interrupts_here() -> None:
    """Hand Ctrl-C back to Python (KeyboardInterrupt), caught by :func:`main` from now on.

    Until here, in the ``rubricjudge`` command, the package's first lines made Ctrl-C
    exit at once with the same line and code (see ``rubricjudge/__init__.py``).
    """
    import signal

    from .. import _interrupted_early

    if signal.getsignal(signal.SIGINT) is _interrupted_early:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _run(argv: Sequence[str] | None) -> int:
    from .._errors import RubricJudgeError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        if args.otel:
            from .._trace import enable_from_env

            enable_from_env(force=True)
        code: int = args.func(args)
    except RubricJudgeError as e:
        print(f"rubricjudge: error: {e}", file=sys.stderr)
        return 1
    return code


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - no real stdout to replace
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
