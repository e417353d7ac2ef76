"""Checking a rubric before it grades anything, and the meta-rubric that grades rubrics."""

from __future__ import annotations

from ._lint import LintFinding, build_meta_rubric, lint_rubric

__all__ = [
    "LintFinding",
    "build_meta_rubric",
    "lint_rubric",
]
