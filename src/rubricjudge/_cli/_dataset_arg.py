"""The DATASET argument of ``evaluate``, ``calibrate`` and ``metrics``.

A dataset file, ``example:NAME``, or a Hugging Face dataset (a ``save_to_disk``
folder, ``.parquet``, ``.arrow`` or ``hf:NAME``) read through a column mapping.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .._errors import ConfigError

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["EXAMPLE_PREFIX", "HF_FLAGS", "add_hf_args", "load_dataset_arg"]

EXAMPLE_PREFIX = "example:"


HF_FLAGS = {
    "submission": "--submission-column",
    "id": "--id-column",
    "query": "--query-column",
    "reference": "--reference-column",
    "labels": "--label-columns",
}


def add_hf_args(p: Any, *, labels: bool = True, rubric: bool = True) -> None:
    """The column mapping of a Hugging Face dataset (and its rubric, which it lacks)."""
    g = p.add_argument_group(
        "Hugging Face datasets (a save_to_disk folder, .parquet, .arrow or hf:NAME; "
        "needs rubricjudge[hf])"
    )
    if rubric:
        g.add_argument("--rubric", metavar="FILE", help="the rubric every row is graded against")
    g.add_argument(
        "--submission-column",
        metavar="COL",
        default="submission",
        help="the column of the text to grade (default: submission)",
    )
    g.add_argument("--id-column", metavar="COL", help="each row's id (default: the row number)")
    g.add_argument("--query-column", metavar="COL", help="the request each submission answers")
    g.add_argument("--reference-column", metavar="COL", help="a reference answer per row")
    if labels:
        g.add_argument(
            "--label-columns",
            metavar="COL,...|KEY=COL,...",
            help="human labels: a column per criterion in the rubric's order, or "
            "CRITERION=COLUMN pairs",
        )
    g.add_argument("--split", help="the split of a dataset holding several (train, test ...)")


def load_dataset_arg(spec: str, args: argparse.Namespace | None = None) -> Any:
    """Load a dataset from a file (JSON, YAML or JSONL), ``example:NAME`` or Hugging Face.

    Raises:
        ConfigError: the file does not exist or the example is unknown; a Hugging Face
            dataset without ``--rubric`` or with a column it does not have.
    """
    from .._datasets._hf import is_hf_source

    if args is not None and is_hf_source(spec):
        return _load_hf(spec, args)
    if args is not None and getattr(args, "rubric", None):
        raise ConfigError(
            f"--rubric is for Hugging Face datasets; {spec!r} is a dataset file, which "
            "holds its rubric"
        )
    if spec.startswith(EXAMPLE_PREFIX):
        from .._datasets._bundled import load_example_dataset

        return load_example_dataset(spec[len(EXAMPLE_PREFIX) :])
    if not Path(spec).is_file():
        raise ConfigError(
            f"dataset {spec!r} not found; give a dataset file (JSON, YAML or JSONL), "
            f"{EXAMPLE_PREFIX}llm_rubric_microsoft or a Hugging Face dataset (a save_to_disk "
            "folder, .parquet, .arrow, hf:NAME)"
        )
    from .._datasets._io import RubricDataset

    return RubricDataset.from_file(spec)


def _load_hf(spec: str, args: argparse.Namespace) -> Any:
    from .._datasets._hf import from_hf, parse_label_columns

    if not getattr(args, "rubric", None):
        raise ConfigError(
            f"{spec} is a Hugging Face dataset, which holds no rubric: give --rubric FILE"
        )
    labels = getattr(args, "label_columns", None)
    return from_hf(
        spec,
        args.rubric,
        submission_column=args.submission_column,
        id_column=args.id_column,
        query_column=args.query_column,
        reference_column=args.reference_column,
        label_columns=parse_label_columns(labels) if labels else None,
        split=args.split,
        flags=HF_FLAGS,
    )
