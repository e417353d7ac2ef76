"""``rubricjudge schema``: print the JSON Schema of the native rubric format."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .._formats._schema import rubric_json_schema

__all__ = ["register", "run"]

HELP = "print the JSON Schema of the native rubric format"


def register(subparsers: Any) -> None:
    """Add the ``schema`` command."""
    p: argparse.ArgumentParser = subparsers.add_parser("schema", help=HELP, description=HELP)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the schema."""
    print(json.dumps(rubric_json_schema(), indent=2, ensure_ascii=False))
    return 0
