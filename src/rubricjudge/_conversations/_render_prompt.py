"""A submission as judges read it: text as is, a conversation compactly, within a budget.

Each message is one line (continuation lines indented two spaces, so text inside a
message cannot start a line that looks like a new message)::

    #1 system: You are an airline agent.
    #2 user: I want to fly to Seattle on May 20.
    #3 assistant calls tool 1: get_user_details {"user_id": "mia_li_3668"}
    #4 tool result 1 (get_user_details): {"name": {"first_name": "Mia"}}
    #5 assistant: Which cabin would you like?

Tool calls are numbered in the order they were made and results name the call they
answer, so ids (``call_...``, ``toolu_...``) never reach the judge and the OpenAI and
Anthropic forms of one trajectory render the same. Arguments are compact JSON.

The budget is in approximate tokens (characters / 4) of the rendered conversation.
Past it, ``over_budget="error"`` raises a :class:`JudgeError` of category
``over_budget`` (graders record it on every judged criterion: the judge is not
asked), and ``"elide"`` keeps the first turns (the system prompt and the first user
message), any messages asked to be kept, and as many of the last messages as fit,
with a visible ``[... N turns elided ...]`` line in place of the rest. A first turn
longer than a third of the budget, or a kept message still too long, loses its
middle, marked ``[... N characters elided ...]``.
What was elided is returned (and graders record it in the report): never silently.
A text submission is never cut.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Literal

from .._errors import ConfigError, JudgeError
from ._conversation import Conversation, Message, ToolUse

__all__ = [
    "OVER_BUDGET_POLICIES",
    "OverBudget",
    "RenderedSubmission",
    "render_conversation",
    "tokens",
]

OverBudget = Literal["error", "elide"]
OVER_BUDGET_POLICIES: tuple[OverBudget, ...] = ("error", "elide")
_MIN_KEEP = 240  # characters a shortened message keeps at least


def tokens(chars: int) -> int:
    """Approximate tokens of ``chars`` characters (characters / 4, rounded up)."""
    return math.ceil(chars / 4)


@dataclass(frozen=True)
class RenderedSubmission:
    """A submission rendered for a prompt, and what had to be left out to fit the budget.

    ``tokens`` is the rendered text's size and ``full_tokens`` the whole
    conversation's (both approximate: characters / 4); ``elided`` counts the
    messages left out and ``shortened_chars`` the characters cut from messages kept.
    """

    text: str
    messages: int = 0
    tokens: int = 0
    full_tokens: int = 0
    budget: int | None = None
    policy: OverBudget | None = None
    elided: int = 0
    shortened_chars: int = 0
    kept: frozenset[int] | None = None  # indices of the messages shown; None: all

    @property
    def cut(self) -> bool:
        """True when anything was left out."""
        return self.elided > 0 or self.shortened_chars > 0

    def record(self) -> dict[str, Any]:
        """What a report keeps about this rendering (``metadata["conversation"]``)."""
        out: dict[str, Any] = {
            "messages": self.messages,
            "tokens": self.tokens,
            "full_tokens": self.full_tokens,
            "budget_tokens": self.budget,
            "over_budget": self.policy,
        }
        if self.cut:
            out["elided_turns"] = self.elided
            out["shortened_chars"] = self.shortened_chars
        return out


def _indent(text: str) -> str:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join([lines[0], *(f"  {line}" if line else "" for line in lines[1:])])


def _message_lines(
    i: int, m: Message, calls: dict[tuple[int, int], int], result_of: dict[int, ToolUse]
) -> str:
    n = i + 1
    lines: list[str] = []
    if m.role == "tool":
        use = result_of.get(i)
        what = f"tool result {use.number}" if use is not None else "tool result"
        flags = [m.name] if m.name else []
        if m.is_error:
            flags.append("error")
        extra = f" ({', '.join(flags)})" if flags else ""
        return f"#{n} {what}{extra}: {_indent(m.content)}"
    if m.reasoning:
        lines.append(f"#{n} {m.role} reasoning: {_indent(m.reasoning)}")
    if m.content or not m.tool_calls:
        lines.append(f"#{n} {m.role}: {_indent(m.content)}")
    for k, call in enumerate(m.tool_calls):
        number = calls[(i, k)]
        args = call.arguments_json
        broken = " (arguments are not valid JSON)" if call.arguments_text is not None else ""
        lines.append(f"#{n} {m.role} calls tool {number}: {call.name} {_indent(args)}{broken}")
    return "\n".join(lines)


def message_blocks(conversation: Conversation) -> list[str]:
    """One rendered block per message, in order."""
    uses = conversation.tool_uses()
    calls: dict[tuple[int, int], int] = {}
    seen: dict[int, int] = {}
    for u in uses:
        k = seen.get(u.message, 0)
        seen[u.message] = k + 1
        calls[(u.message, k)] = u.number
    result_of = {u.result: u for u in uses if u.result is not None}
    return [_message_lines(i, m, calls, result_of) for i, m in enumerate(conversation.messages)]


def _marker(first: int, last: int) -> str:
    count = last - first + 1
    what = "turn" if count == 1 else "turns"
    span = f"#{first + 1}" if count == 1 else f"#{first + 1} to #{last + 1}"
    return f"[... {count} {what} elided ({span}) to fit the judge's budget ...]"


def _shorten(block: str, keep: int) -> tuple[str, int]:
    if len(block) <= keep:
        return block, 0
    cut = len(block) - keep
    note = f" [... {cut:,} characters elided ...] "
    head = max(0, (keep - len(note)) * 3 // 5)
    tail = max(0, keep - len(note) - head)
    return block[:head] + note + (block[-tail:] if tail else ""), cut


def _head(conversation: Conversation) -> set[int]:
    """The first turns: the first message and, after system messages, the first user one."""
    head = {0}
    for i, m in enumerate(conversation.messages):
        if m.role != "system":
            head.add(i)
            break
    return head


def render_conversation(
    conversation: Conversation,
    *,
    budget: int | None = None,
    over_budget: OverBudget = "error",
    keep: Collection[int] = (),
) -> RenderedSubmission:
    """Render ``conversation`` within ``budget`` tokens (None: no budget); see the module doc.

    ``keep`` lists message indices that must stay whole if anything is elided (the
    turn a criterion asks about).

    Raises:
        JudgeError: category ``over_budget``, past the budget under ``"error"``, or when
            even the first and last turns cannot fit under ``"elide"``.
    """
    if over_budget not in OVER_BUDGET_POLICIES:
        raise ConfigError(f"over_budget {over_budget!r} is not 'error' or 'elide'")
    blocks = message_blocks(conversation)
    full = "\n".join(blocks)
    n = len(blocks)
    size = tokens(len(full))
    base = RenderedSubmission(full, n, size, size, budget, over_budget)
    if budget is None or size <= budget:
        return base
    if over_budget == "error":
        raise JudgeError(
            f"the conversation is about {size:,} tokens, over the judge's budget of {budget:,}; "
            "raise the budget (--conversation-budget / conversation_budget=) or let the grader "
            "elide the middle turns (--over-budget elide / over_budget='elide')",
            category="over_budget",
        )
    limit = budget * 4
    head = _head(conversation)
    texts = {i: blocks[i] for i in head | {i for i in keep if 0 <= i < n} | {n - 1}}
    shortened = 0
    for i in head:  # a long system prompt may take a third of the budget, not all of it
        if len(texts[i]) > limit // 3 and i not in keep:
            texts[i], cut = _shorten(texts[i], max(_MIN_KEEP, limit // 3))
            shortened += cut
    used = sum(len(t) + 1 for t in texts.values()) + 3 * len(_marker(0, n))
    for i in range(n - 1, -1, -1):  # the last turns, contiguously, while they fit
        if i in texts:
            continue
        if used + len(blocks[i]) + 1 > limit:
            break
        texts[i] = blocks[i]
        used += len(blocks[i]) + 1
    while used > limit:  # kept messages alone are too long: cut the longest one's middle
        longest = max(texts, key=lambda i: len(texts[i]))
        room = len(texts[longest]) - (used - limit)
        if room < _MIN_KEEP or len(texts[longest]) <= _MIN_KEEP:
            raise JudgeError(
                f"the conversation is about {size:,} tokens; even its first and last turns do "
                f"not fit the judge's budget of {budget:,}; raise the budget "
                "(--conversation-budget / conversation_budget=)",
                category="over_budget",
            )
        texts[longest], cut = _shorten(texts[longest], room)
        shortened += cut
        used = sum(len(t) + 1 for t in texts.values()) + 3 * len(_marker(0, n))
    out: list[str] = []
    gap_start: int | None = None
    elided = 0
    for i in range(n):
        if i in texts:
            if gap_start is not None:
                out.append(_marker(gap_start, i - 1))
                gap_start = None
            out.append(texts[i])
        else:
            elided += 1
            if gap_start is None:
                gap_start = i
    if gap_start is not None:  # pragma: no cover - the last message is always kept
        out.append(_marker(gap_start, n - 1))
    text = "\n".join(out)
    return RenderedSubmission(
        text, n, tokens(len(text)), size, budget, over_budget, elided, shortened, frozenset(texts)
    )
