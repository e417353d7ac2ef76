"""The one error tree of rubricjudge.

::

    RubricJudgeError
    ├── UsageError              you asked for something that cannot work
    │   ├── RubricError         a rubric (file or object) is invalid; carries every problem
    │   ├── VerdictError        a verdict does not fit its criterion
    │   ├── DatasetError        a dataset (file or object) is invalid (also a ValueError)
    │   └── ConfigError         a bad argument, judge spec, option or missing extra
    └── RunError                something failed while running
        └── JudgeError          a judge call failed after its retries (has a category)
            └── JudgeParseError its reply could not be read (also a ValueError)

Usage errors are raised before any judge is called. Judge errors are recorded in
reports as data; they are raised only where the caller asked for that policy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Self

__all__ = [
    "ConfigError",
    "DatasetError",
    "JudgeError",
    "JudgeErrorCategory",
    "JudgeParseError",
    "Problem",
    "RubricError",
    "RubricJudgeError",
    "RunError",
    "UsageError",
    "VerdictError",
]


class RubricJudgeError(Exception):
    """Root of every error rubricjudge raises on purpose."""


class UsageError(RubricJudgeError):
    """The caller asked for something that cannot work; fix the input and retry."""


class RunError(RubricJudgeError):
    """Something failed while running (judges, storage, the network)."""


@dataclass(frozen=True)
class Problem:
    """One problem found in a rubric: where it is, what is wrong, how to fix it."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path or '<root>'}: {self.message}"


class RubricError(UsageError):
    """A rubric is invalid. ``problems`` lists every problem found, each with its path."""

    def __init__(self, problems: list[Problem], *, source: str | None = None) -> None:
        self.problems = list(problems)
        self.source = source
        head = f"invalid rubric {source}" if source else "invalid rubric"
        lines = "\n".join(f"  {p}" for p in self.problems)
        super().__init__(f"{head}:\n{lines}" if lines else head)


class VerdictError(UsageError):
    """A verdict or option label does not fit the criterion it is given for."""


class DatasetError(UsageError, ValueError):
    """A dataset is invalid; the message names the file, the item and the field.

    Also a ``ValueError``, as autorubric's dataset errors are.
    """


class ConfigError(UsageError):
    """A bad argument, judge spec or option, or an optional extra that is not installed."""


JudgeErrorCategory = Literal[
    "rate_limit",
    "server",
    "timeout",
    "connection",
    "auth",
    "bad_request",
    "parse",
    "refusal",
    "function",
    "unknown",
]


class JudgeError(RunError):
    """A judge call failed after its retries; ``category`` says what kind of failure.

    ``JudgeError(..., category="parse")`` creates a :class:`JudgeParseError`, as
    ``OSError(errno.ENOENT, ...)`` creates a ``FileNotFoundError``.
    """

    def __new__(cls, *args: object, **kwargs: object) -> Self:
        # a parse failure is also a ValueError (JudgeParseError), whoever raises it
        if cls is JudgeError and kwargs.get("category") == "parse":
            return super().__new__(JudgeParseError, *args)  # type: ignore[return-value]
        return super().__new__(cls, *args)

    def __init__(
        self,
        message: str,
        *,
        category: JudgeErrorCategory = "unknown",
        attempts: int = 1,
        raw_text: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.category: JudgeErrorCategory = category
        self.attempts = attempts
        self.raw_text = raw_text
        self.retry_after = retry_after  # seconds the server asked to wait, when it said
        super().__init__(f"{category}: {message}")


class JudgeParseError(JudgeError, ValueError):
    """A judge's reply could not be read as an answer, after the parse retries.

    Also a ``ValueError``: the seed ``rubric`` package raises ValueError when
    parsing fails, so ``except ValueError`` written for it catches this too.
    Graders record it as an error by default; ``on_error="raise"`` raises it.
    """
