"""Parse a judge's text reply into an object, repairing the usual damage.

Handles code fences, text around the JSON object, and trailing commas. Anything
else is a parse error (the caller retries or records it), never a guess.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from .._limits import may_hold_surrogates, without_surrogates

__all__ = ["parse_json_reply"]

_TRAILING_COMMA = re.compile(r",\s*([}\]])")


MAX_REPLY_CHARS = 1_000_000
"""Longer replies are not searched for an object: no judge reply is that long."""


_MAX_FENCES = 64
"""Fenced blocks searched for the object: a reply with more is not a judge's answer."""


def _fenced(text: str) -> list[str]:
    """The contents of the closed ```` ``` ```` fences in ``text``, a ``json`` tag dropped.

    Split on the markers rather than matched with a regex: a fence followed by a
    long run of whitespace made the pattern's backtracking quadratic.
    """
    parts = text.split("```", 2 * _MAX_FENCES)
    out = []
    for body in parts[1:-1:2]:  # odd parts lie between an opening and a closing marker
        if body[:4] in ("json", "JSON"):
            body = body[4:]
        out.append(body.strip())
    return out


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


def _candidates(text: str) -> Iterator[str]:
    """Where the object may be, in order; each searched only when those before it failed.

    Nearly every reply is the bare object: it is parsed without a scan of the text.
    """
    yield text.strip()
    yield from _fenced(text)
    obj = _first_object(text)
    if obj is not None:
        yield obj


def parse_json_reply(text: str) -> dict[str, Any]:
    """The JSON object in ``text``.

    Raises:
        ValueError: no JSON object could be recovered; the message says what was seen.
    """
    if len(text) > MAX_REPLY_CHARS:
        raise ValueError(f"reply is {len(text):,} characters, more than {MAX_REPLY_CHARS:,}")
    for cand in _candidates(text):
        if not cand.startswith("{"):
            continue  # only an object is an answer: parsing nothing else keeps this linear
        for attempt in (cand, _TRAILING_COMMA.sub(r"\1", cand)):
            try:
                value = json.loads(attempt)
            except (json.JSONDecodeError, ValueError, RecursionError):
                continue
            if isinstance(value, dict):
                # half an emoji (a lone surrogate escape) cannot be stored or written
                if not may_hold_surrogates(attempt):
                    return value
                return without_surrogates(value)[0]  # type: ignore[no-any-return]
    snippet = text.strip().replace("\n", " ")
    if len(snippet) > 120:
        snippet = snippet[:117] + "..."
    raise ValueError(f"reply is not a JSON object: {snippet!r}")
