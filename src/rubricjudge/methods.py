"""Scoring methods beyond the judge (code functions, JSON Schema, decode) and mixed rubrics."""

from __future__ import annotations

from ._graders._mixed import evaluate_rubric, evaluate_rubric_sync
from ._methods._feedback import (
    generate_criterion_feedback,
    generate_deterministic_summary,
    generate_feedback_summary,
)
from ._methods._functions import FunctionRegistry
from ._methods._run import run_method

__all__ = [
    "FunctionRegistry",
    "evaluate_rubric",
    "evaluate_rubric_sync",
    "generate_criterion_feedback",
    "generate_deterministic_summary",
    "generate_feedback_summary",
    "run_method",
]
