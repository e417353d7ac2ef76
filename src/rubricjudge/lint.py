"""Checking a rubric before it grades anything, and the meta-rubric that grades rubrics."""

from __future__ import annotations

from ._lint._meta import build_meta_rubric
from ._lint._rules import LintFinding, lint_rubric

__all__ = [
    "LintFinding",
    "build_meta_rubric",
    "lint_rubric",
]
