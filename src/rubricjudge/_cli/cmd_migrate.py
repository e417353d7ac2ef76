"""``rubricjudge migrate``: bring an OpenRubricRL v1 rubric file to the v2 schema."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .._errors import ConfigError, Problem, RubricError
from .._formats._load import load_data
from .._formats._text import dump_kind, read_source, render, write_text

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]

DESCRIPTION = """\
Migrate an OpenRubricRL rubric file from the v1 schema to v2: set a missing
version, normalise the criterion weights to sum to 1, map an unknown domain to
"general", and require an explanation on every example. Every change is listed
(old -> new). The migrated rubric is checked before it is written.

Writes <stem>.v2<ext> next to the input unless -o OUT is given; the input is
overwritten only with --in-place, and an existing output only with --force.
An example without an explanation stops the migration (exit 1) unless
--placeholder-explanations writes a placeholder, flagged [review] in the list.
"""


def register(subparsers: Any) -> None:
    """Add the ``migrate`` command."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "migrate",
        help="migrate an OpenRubricRL rubric file to the v2 schema",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="the OpenRubricRL rubric (JSON or YAML)")
    p.add_argument("--to-version", default="2.0.0", choices=("2.0.0",), help="schema version")
    out = p.add_mutually_exclusive_group()
    out.add_argument("-o", "--output", metavar="OUT", help="file to write")
    out.add_argument("--in-place", action="store_true", help="overwrite FILE itself")
    p.add_argument("--force", action="store_true", help="overwrite an existing OUT")
    p.add_argument(
        "--set-version",
        default="1.0.0",
        metavar="V",
        help="the rubric version to set when it has none (default 1.0.0)",
    )
    p.add_argument(
        "--placeholder-explanations",
        action="store_true",
        help="write a placeholder for missing example explanations instead of refusing",
    )
    p.set_defaults(func=run)


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


def _target(args: argparse.Namespace, src: Path) -> Path:
    if args.in_place:
        return src
    dest = Path(args.output) if args.output else src.with_name(f"{src.stem}.v2{src.suffix}")
    if dest.exists() and _same(dest, src):
        raise ConfigError(
            f"{str(dest)!r} is the input file; migrate overwrites its input only with --in-place"
        )
    if dest.exists() and not args.force:
        raise ConfigError(f"{str(dest)!r} exists; pass --force to overwrite it or -o another path")
    return dest


def run(args: argparse.Namespace) -> int:
    """Migrate, report the changes, check and write."""
    from .._formats._migrate import migrate_openrubricrl

    src = Path(args.file)
    data, kind, name = read_source(src)
    dest = _target(args, src)
    result = migrate_openrubricrl(
        data,
        to_version=args.to_version,
        default_version=args.set_version,
        name=src.stem,
        placeholder_explanations=args.placeholder_explanations,
    )
    if not result.ok:
        raise RubricError(result.problems, source=f"{name} (nothing was written)")
    try:
        load_data(result.data, format="openrubricrl", source=str(dest))
    except RubricError as e:
        problems = [Problem(p.path, p.message) for p in e.problems]
        raise RubricError(problems, source=f"{name}, migrated (nothing was written)") from None
    if not result.changes:  # nothing to migrate: leave every file as it is
        print(
            f"{name} is already OpenRubricRL {args.to_version}: no changes, nothing written",
            file=sys.stderr,
        )
        return 0
    out_kind = kind if args.in_place or not args.output else dump_kind(dest)
    write_text(dest, render(result.data, out_kind), flag="--in-place" if args.in_place else "-o")
    for change in result.changes:
        print(f"  {change}")
    review = sum(1 for c in result.changes if c.review)
    tail = f"; {review} to review" if review else ""
    what = f"{len(result.changes)} change(s)" if result.changes else "already v2, no changes"
    print(f"wrote {dest} (OpenRubricRL {args.to_version}: {what}{tail})", file=sys.stderr)
    return 0
