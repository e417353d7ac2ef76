"""Checking a rubric before it grades anything, and the meta-rubric that grades rubrics."""

from ._meta import build_meta_rubric
from ._rules import LintFinding, lint_rubric

__all__ = ["LintFinding", "build_meta_rubric", "lint_rubric"]
