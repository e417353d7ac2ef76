"""The one error tree of rubricjudge.

::

    RubricJudgeError
    ├── UsageError              you asked for something that cannot work
    │   ├── RubricError         a rubric (file or object) is invalid; carries every problem
    │   ├── VerdictError        a verdict does not fit its criterion
    │   ├── DatasetError        a dataset (file or object) is invalid (also a ValueError)
    │   ├── ConversationError   a conversation's messages are malformed (also a ValueError)
    │   ├── ConfigError         a bad argument, judge spec, option or missing extra
    │   ├── DataLimitError      data past a reading bound (size, nesting; also a ValueError)
    │   ├── RegistryError       a registry request that cannot be done as asked
    │   │   ├── RubricNotFound  no such rubric id or version (also a LookupError)
    │   │   └── VersionConflict the version exists or is not past the latest
    │   ├── RubricNotFoundError the server's source has no such rubric (also a LookupError)
    │   └── IllegalTransition   a review status change the flow does not allow
    └── RunError                something failed while running
        ├── JudgeError          a judge call failed after its retries (has a category)
        │   └── JudgeParseError its reply could not be read (also a ValueError)
        ├── StorageError        the database failed, after retries
        ├── MetricError         a hybrid metric could not run (recorded, never a 0)
        ├── RewardError         a completion could not be scored as a reward
        └── AmbiguousBatch      a lost batch-create reply matches several batches
    RubricAssertionError        assert_rubric: the output fell short (also an AssertionError)

Usage errors are raised before any judge is called. Judge errors are recorded in
reports as data; they are raised only where the caller asked for that policy.
A failed rubric assertion is neither: it is the answer to the check the caller
asked for, raised as an ``AssertionError`` so that test runners report a failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Self, TypeVar

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
    "LabelError",
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
    "UnknownItem",
    "UsageError",
    "VerdictError",
    "VersionConflict",
    "install_hint",
    "missing_extra",
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


class ConversationError(UsageError, ValueError):
    """A conversation's messages are malformed; the message names the path inside them.

    The path reads like ``messages[2].tool_calls[0].function.arguments``; callers
    reading a file put the file and line in front of it.
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
    "over_budget",
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


class DataLimitError(UsageError, ValueError):
    """Data beyond one of rubricjudge's reading bounds (file size, nesting, aliases, text).

    Also a ``ValueError``, as it was before it joined the tree.
    """


class RegistryError(UsageError):
    """A registry request that cannot be done as asked."""


class RubricNotFound(RegistryError, LookupError):
    """No such rubric id (or version) in the registry."""


class VersionConflict(RegistryError):
    """The version exists already, or is not greater than the latest."""


class RubricNotFoundError(UsageError, LookupError):
    """The scoring server's source has no rubric with that id (the message lists some that do)."""


class LabelError(UsageError):
    """A label the labelling page cannot apply: no such criterion, or a value that does not fit."""


class UnknownItem(LabelError, LookupError):
    """The labelling page's dataset has no item of that name."""


class IllegalTransition(UsageError):
    """A status change the review flow does not allow."""


class StorageError(RunError):
    """The database failed (and retrying did not help)."""


class MetricError(RunError):
    """A metric could not run: a missing extra, reference or model, or a bad result.

    Recorded on the metric's :class:`~rubricjudge.MetricResult` as ``error``; never
    turned into a score of 0.
    """


class RewardError(RunError):
    """A completion could not be scored and the reward's failure policy is ``"raise"``."""


class AmbiguousBatch(RunError):
    """A batch whose create reply was lost matches several batches on the provider."""


class RubricAssertionError(RubricJudgeError, AssertionError):
    """An output did not meet its rubric in ``assert_rubric``, or could not be judged.

    Also an ``AssertionError``, so pytest reports a failed test. The message lists
    every criterion's verdict and reason; ``report`` is the grade it was decided on.
    """

    def __init__(self, message: str, report: Any = None) -> None:
        self.report = report
        super().__init__(message)


E = TypeVar("E", bound=RubricJudgeError)


def install_hint(extra: str) -> str:
    """The pip command that installs one of rubricjudge's extras."""
    return f"pip install 'rubricjudge[{extra}]'"


def missing_extra(extra: str, what: str, error: type[E] = ConfigError) -> E:  # type: ignore[assignment]
    """The error for an optional dependency that is not installed, with the command to fix it.

    ``raise missing_extra("serve", "the scoring server needs starlette and uvicorn")``
    reads: the scoring server needs starlette and uvicorn; install with:
    pip install 'rubricjudge[serve]'.
    """
    return error(f"{what}; install with: {install_hint(extra)}")
