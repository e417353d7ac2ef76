"""Scoring methods beyond the LLM judge: code functions, JSON Schema, sandboxed decode."""

from ._evaluate import FeedbackMode, evaluate_rubric, evaluate_rubric_sync
from ._functions import FunctionRegistry, FunctionResult
from ._run import run_method

__all__ = [
    "FeedbackMode",
    "FunctionRegistry",
    "FunctionResult",
    "evaluate_rubric",
    "evaluate_rubric_sync",
    "run_method",
]
