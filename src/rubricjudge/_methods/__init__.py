"""Scoring methods beyond the LLM judge: code functions, JSON Schema, sandboxed decode."""
