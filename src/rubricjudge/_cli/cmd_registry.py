"""``rubricjudge registry``: the versioned rubric registry (add, get, list, history, delete)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .._formats._load import load_rubrics

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]

HELP = "store and fetch versioned rubrics"
DESCRIPTION = """\
A versioned rubric registry in an SQLite file (default: $RUBRICJUDGE_REGISTRY, else
~/.local/share/rubricjudge/registry.sqlite3) or PostgreSQL (--db postgresql://...).

  add FILE            register each rubric in FILE, or store it as a new version
                      (its version must be greater than the latest)
  get ID [--version]  print a rubric (latest or the given version) as native JSON
  list                the latest version of every rubric (--target-type to filter)
  history ID          every stored version with its content hash
  delete ID           remove the latest pointer; the history stays for audit
"""


def register(subparsers: Any) -> None:
    """Add the ``registry`` command and its subcommands."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "registry",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="registry_command", metavar="SUBCOMMAND", required=True)

    def cmd(name: str, help: str) -> argparse.ArgumentParser:
        c: argparse.ArgumentParser = sub.add_parser(name, help=help)
        c.add_argument("--db", metavar="URL", help="database path or URL (default: see above)")
        c.set_defaults(func=run, action=name)
        return c

    add = cmd("add", "register a rubric file (or a new version of it)")
    add.add_argument("file", metavar="FILE")
    add.add_argument("--format", default="auto", help="the file's format (default: detect)")
    get = cmd("get", "print a rubric as native JSON")
    get.add_argument("id", metavar="ID")
    get.add_argument("--version", metavar="V", help="this version instead of the latest")
    lst = cmd("list", "list the latest version of every rubric")
    lst.add_argument("--target-type", metavar="T", help="only rubrics for this target type")
    lst.add_argument("--json", action="store_true", help="print JSON")
    hist = cmd("history", "list every stored version of a rubric")
    hist.add_argument("id", metavar="ID")
    hist.add_argument("--json", action="store_true", help="print JSON")
    dele = cmd("delete", "remove a rubric's latest pointer (history is kept)")
    dele.add_argument("id", metavar="ID")


def _add(registry: Any, args: argparse.Namespace) -> int:
    from .._registry._records import same_content

    for rubric in load_rubrics(args.file, format=args.format):
        if not rubric.id:  # the registry stores by id: take the name, else the file stem
            given = rubric.name or Path(args.file).stem
            rubric = rubric.model_copy(update={"id": given})
            print(
                f"rubric has no id; using {given!r} (its {'name' if rubric.name else 'file name'})"
                "; add `id:` to the file to choose another",
                file=sys.stderr,
            )
        if rubric.id and _exists(registry, rubric.id):
            latest = registry.get_version(rubric.id)
            if latest.version == rubric.version and same_content(rubric, latest.content_hash):
                print(f"unchanged {rubric.id} {latest.version} sha256:{latest.content_hash}")
                continue
            rec = registry.update(rubric)
        else:
            rec = registry.register(rubric)
        done = "registered" if rec.action == "register" else "updated"
        print(f"{done} {rec.rubric_id} {rec.version} sha256:{rec.content_hash}")
    return 0


def _exists(registry: Any, rubric_id: str) -> bool:
    from .._registry._records import RubricNotFound

    try:
        registry.get_version(rubric_id)
    except RubricNotFound:
        return False
    return True


def _row(rec: Any) -> dict[str, Any]:
    return {
        "id": rec.rubric_id,
        "version": rec.version,
        "content_hash": rec.content_hash,
        "target_type": rec.target_type,
        "name": rec.name,
        "action": rec.action,
        "created_at": rec.created_at,
        "latest": rec.is_latest,
    }


def run(args: argparse.Namespace) -> int:
    """Run one registry subcommand."""
    from .._registry._records import native_data
    from .._registry._store import RubricRegistry

    registry = RubricRegistry(args.db)
    if args.action == "add":
        return _add(registry, args)
    if args.action == "get":
        rubric = registry.get(args.id, args.version)
        json.dump(native_data(rubric), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    if args.action == "delete":
        registry.delete(args.id)
        print(f"deleted {args.id} (its history is kept)")
        return 0
    recs = (
        registry.list_all(args.target_type) if args.action == "list" else registry.history(args.id)
    )
    if args.json:
        json.dump([_row(r) for r in recs], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for r in recs:
        mark = " (latest)" if r.is_latest and args.action == "history" else ""
        print(
            f"{r.rubric_id}\t{r.version}\t{r.target_type or '-'}\t{r.name or '-'}\t"
            f"sha256:{r.content_hash[:12]}\t{r.created_at}{mark}"
        )
    if not recs:
        print("(no rubrics)")
    return 0
