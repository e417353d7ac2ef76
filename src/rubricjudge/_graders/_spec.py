"""A grader described by plain data, so another process can build the same one.

A live grader holds judges, HTTP sessions, perhaps a loaded model: nothing that
should cross a process boundary. A :class:`GraderSpec` holds what made it (which
grader, which judge specs, which options) and :meth:`GraderSpec.build` makes it
again wherever it is unpickled: on a Ray actor, once per actor.
"""

from __future__ import annotations

import difflib
import importlib
import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError
from ._ensemble import JudgeSpec

if TYPE_CHECKING:
    from ._base import Grader

__all__ = ["GRADER_KINDS", "GraderSpec", "completion_tokens"]


@dataclass(frozen=True)
class _Kind:
    module: str  # where the class is (imported when a grader is built)
    cls: str
    completion_tokens: int  # a judge reply's tokens, for dry-run estimates


# the one list of grader kinds: the CLI's --grader choices, GraderSpec and dry runs read it
_KINDS = {
    "per-criterion": _Kind("._criterion", "CriterionGrader", 40),
    "one-shot": _Kind("._oneshot", "PerCriterionOneShotGrader", 40),
    "holistic": _Kind("._holistic", "RubricAsJudgeGrader", 60),
}
GRADER_KINDS = tuple(_KINDS)


def completion_tokens(kind: str) -> int:
    """The completion tokens a dry run expects of one judge call of this grader kind."""
    return _KINDS[kind].completion_tokens


@dataclass(frozen=True)
class GraderSpec:
    """Which grader to build, with which judge(s) and options; picklable by design.

    Args:
        grader: ``"per-criterion"`` (default), ``"one-shot"`` or ``"holistic"``.
        judge: a judge spec string (``"openai/gpt-4.1-mini"``, ``"local"``); default ``"local"``.
        judges: an ensemble: spec strings or :class:`JudgeSpec` (not with ``judge``).
        options: the grader's keyword arguments (``judge_options``, ``concurrency``,
            ``verdict_method`` ...), plain data only.

    Raises:
        ConfigError: an unknown grader, both ``judge`` and ``judges``, or options that
            cannot be pickled (a live object where plain data is needed).
    """

    grader: str = "per-criterion"
    judge: str | None = None
    judges: Sequence[str | JudgeSpec] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.grader not in GRADER_KINDS:
            near = difflib.get_close_matches(self.grader, GRADER_KINDS, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise ConfigError(
                f"grader {self.grader!r} is not one of "
                + ", ".join(repr(k) for k in GRADER_KINDS)
                + hint
            )
        if self.judge is not None and self.judges is not None:
            raise ConfigError("give judge= or judges=, not both")
        if self.judges is not None:
            object.__setattr__(self, "judges", tuple(self.judges))
        object.__setattr__(self, "options", dict(self.options))
        try:
            pickle.dumps(self)
        except Exception as e:  # a live object (a judge, a callable) cannot travel
            raise ConfigError(
                f"GraderSpec must hold plain data (judge spec strings, option values) so "
                f"another process can rebuild the grader; it cannot be pickled: {e}"
            ) from None

    def build(self) -> Grader:
        """Build the grader this spec describes."""
        kind = _KINDS[self.grader]
        cls: type[Grader] = getattr(importlib.import_module(kind.module, __package__), kind.cls)
        if self.judges is not None:
            return cls(judges=list(self.judges), **self.options)
        return cls(self.judge or "local", **self.options)
