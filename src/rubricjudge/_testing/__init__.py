"""Rubric assertions in tests: ``assert_rubric`` and the session behind the pytest fixture."""

from ._message import failure_message
from ._session import (
    DEFAULT_JUDGE,
    RubricJudgeSession,
    assert_rubric,
    configured_judge,
    shared_session,
)

__all__ = [
    "DEFAULT_JUDGE",
    "RubricJudgeSession",
    "assert_rubric",
    "configured_judge",
    "failure_message",
    "shared_session",
]
