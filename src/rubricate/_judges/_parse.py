"""Parse a judge's text reply into an object, repairing the usual damage.

Handles code fences, text around the JSON object, and trailing commas. Anything
else is a parse error (the caller retries or records it), never a guess.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["parse_json_reply"]

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


MAX_REPLY_CHARS = 1_000_000
"""Longer replies are not searched for an object: no judge reply is that long."""


def _first_object(text: str) -> str | None:
    """The balanced ``{...}`` that starts first in ``text``, aware of strings and escapes.

    One pass with a stack of open braces, so time is linear in the reply's length
    (a reply of sixteen thousand ``{`` once took seconds to search brace by brace).
    """
    opened: list[int] = []
    best: tuple[int, int] | None = None
    in_str = esc = False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "{":
            opened.append(i)
        elif ch == "}" and opened:
            start = opened.pop()
            if best is None or start < best[0]:
                best = (start, i)
            if not opened:
                break  # an outermost object closed: nothing later can start earlier
    return None if best is None else text[best[0] : best[1] + 1]


def parse_json_reply(text: str) -> dict[str, Any]:
    """The JSON object in ``text``.

    Raises:
        ValueError: no JSON object could be recovered; the message says what was seen.
    """
    if len(text) > MAX_REPLY_CHARS:
        raise ValueError(f"reply is {len(text):,} characters, more than {MAX_REPLY_CHARS:,}")
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    obj = _first_object(text)
    if obj is not None:
        candidates.append(obj)
    for cand in candidates:
        for attempt in (cand, _TRAILING_COMMA.sub(r"\1", cand)):
            try:
                value = json.loads(attempt)
            except (json.JSONDecodeError, ValueError, RecursionError):
                continue
            if isinstance(value, dict):
                return value
    snippet = text.strip().replace("\n", " ")
    if len(snippet) > 120:
        snippet = snippet[:117] + "..."
    raise ValueError(f"reply is not a JSON object: {snippet!r}")
