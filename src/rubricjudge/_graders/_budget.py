"""How much of a conversation each judge is shown: the budget, per judge, in tokens.

The budget covers the rendered conversation (the ``<submission-CODE>`` block), in
approximate tokens (characters / 4). A grader's ``conversation_budget`` wins; else
each judge's own: a judge object may say it (a ``conversation_budget`` attribute);
the embedded ``local`` judge gets its context (``n_ctx``, 4,096 unless set) less
1,600 tokens for the instructions, the criterion and the reply, so 2,496 by
default; every other judge gets 32,000 (a bound on cost more than on context:
every judged criterion sends the conversation again). With several judges the
smallest budget applies, so every judge sees the same text. Text submissions have
no budget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["DEFAULT_BUDGET", "LOCAL_RESERVE", "judge_budget", "members_budget"]

DEFAULT_BUDGET = 32_000
LOCAL_RESERVE = 1_600
_LOCAL_CONTEXT = 4_096


def _declared(judge: Any) -> int | None:
    seen = 0
    while judge is not None and seen < 8:  # wrappers (recording, retries) hold the judge
        value = getattr(judge, "conversation_budget", None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
        judge = getattr(judge, "inner", None)
        seen += 1
    return None


def judge_budget(judge: Any, judge_options: Mapping[str, Any] | None = None) -> int:
    """The budget, in approximate tokens, of the conversation shown to ``judge``."""
    declared = _declared(judge)
    if declared is not None:
        return declared
    name = str(getattr(judge, "name", "") or "")
    if name == "local" or name.startswith("local/"):
        extra = (judge_options or {}).get("extra_params") or {}
        n_ctx = extra.get("n_ctx", _LOCAL_CONTEXT) if isinstance(extra, Mapping) else _LOCAL_CONTEXT
        return max(256, int(n_ctx) - LOCAL_RESERVE)
    return DEFAULT_BUDGET


def members_budget(judges: Sequence[Any], judge_options: Mapping[str, Any] | None = None) -> int:
    """The smallest budget of ``judges`` (so all of them see the same conversation)."""
    return min((judge_budget(j, judge_options) for j in judges), default=DEFAULT_BUDGET)
