"""The error tree: every exception rubricjudge raises on purpose, under :class:`RubricJudgeError`.

See ``rubricjudge._errors`` for the tree; ``UsageError`` is the caller's to fix,
``RunError`` is something that failed while running; ``RubricAssertionError`` is a
failed ``assert_rubric`` (also an ``AssertionError``).
"""

from __future__ import annotations

from ._errors import (
    AmbiguousBatch,
    ConfigError,
    ConversationError,
    DataLimitError,
    DatasetError,
    IllegalTransition,
    JudgeError,
    JudgeErrorCategory,
    JudgeParseError,
    MetricError,
    Problem,
    RegistryError,
    RewardError,
    RubricAssertionError,
    RubricError,
    RubricJudgeError,
    RubricNotFound,
    RubricNotFoundError,
    RunError,
    StorageError,
    UsageError,
    VerdictError,
    VersionConflict,
)

__all__ = [
    "AmbiguousBatch",
    "ConfigError",
    "ConversationError",
    "DataLimitError",
    "DatasetError",
    "IllegalTransition",
    "JudgeError",
    "JudgeErrorCategory",
    "JudgeParseError",
    "MetricError",
    "Problem",
    "RegistryError",
    "RewardError",
    "RubricAssertionError",
    "RubricError",
    "RubricJudgeError",
    "RubricNotFound",
    "RubricNotFoundError",
    "RunError",
    "StorageError",
    "UsageError",
    "VerdictError",
    "VersionConflict",
]
