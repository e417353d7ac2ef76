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


def _first_object(text: str) -> str | None:
    """The first balanced ``{...}`` in ``text``, aware of strings and escapes."""
    start = text.find("{")
    while start != -1:
        depth, in_str, esc = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
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
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return text[start : i + 1]
        start = text.find("{", start + 1)
    return None


def parse_json_reply(text: str) -> dict[str, Any]:
    """The JSON object in ``text``.

    Raises:
        ValueError: no JSON object could be recovered; the message says what was seen.
    """
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    obj = _first_object(text)
    if obj is not None:
        candidates.append(obj)
    for cand in candidates:
        for attempt in (cand, _TRAILING_COMMA.sub(r"\1", cand)):
            try:
                value = json.loads(attempt)
            except (json.JSONDecodeError, ValueError):
                continue
            if isinstance(value, dict):
                return value
    snippet = text.strip().replace("\n", " ")
    if len(snippet) > 120:
        snippet = snippet[:117] + "..."
    raise ValueError(f"reply is not a JSON object: {snippet!r}")
