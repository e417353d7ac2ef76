"""The DATASET argument of ``evaluate`` and ``metrics``: a file or ``example:NAME``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._errors import ConfigError

__all__ = ["EXAMPLE_PREFIX", "load_dataset_arg"]

EXAMPLE_PREFIX = "example:"


def load_dataset_arg(spec: str) -> Any:
    """Load a dataset from a file (JSON, YAML or JSONL) or ``example:NAME``.

    Raises:
        ConfigError: the file does not exist or the example is unknown.
    """
    if spec.startswith(EXAMPLE_PREFIX):
        from .._datasets import load_example_dataset

        return load_example_dataset(spec[len(EXAMPLE_PREFIX) :])
    if not Path(spec).is_file():
        raise ConfigError(
            f"dataset {spec!r} not found; give a dataset file (JSON, YAML or JSONL) "
            f"or {EXAMPLE_PREFIX}llm_rubric_microsoft"
        )
    from .._datasets import RubricDataset

    return RubricDataset.from_file(spec)
