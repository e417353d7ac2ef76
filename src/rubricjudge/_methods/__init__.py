"""Scoring methods beyond the LLM judge: code functions, JSON Schema, sandboxed decode."""

from ._functions import FunctionRegistry, FunctionResult
from ._run import run_method

__all__ = ["FunctionRegistry", "FunctionResult", "run_method"]
