"""Read a decision's probabilities from chat-completions ``logprobs``.

An OpenAI-compatible server asked for ``logprobs`` and ``top_logprobs`` returns,
for every generated token, its text and the most likely alternatives with their
log-probabilities. The decision's value (``"MET"``, ``3``) starts at a known
place in the reply text; walking the tokens from there, the first token whose
alternatives lead to different allowed values is where the model chose. Each
alternative there is mapped to the one allowed value its text can begin (or
complete), the probabilities of the alternatives leading to one value are
summed, and the result is renormalised over the allowed values. Alternatives
that fit no allowed value, or several, are left out; values outside the server's
top alternatives count as 0.

Limits, by design: when a value's text is a prefix of another's (option ``1``
beside ``10``), the choice between the short values made at an earlier token is
not seen; and a reply whose tokens cannot be lined up with its text gives None.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ._base import Decision

__all__ = ["decision_probabilities"]


def _value_start(text: str, key: str) -> int | None:
    m = re.search(r'"' + re.escape(key) + r'"\s*:\s*', text)
    return m.end() if m else None


def _fits(candidate: str, values: Mapping[str, str]) -> list[str]:
    """Allowed values whose JSON text ``candidate`` can begin or already contains."""
    out = []
    for name, js in values.items():
        if js.startswith(candidate) or (candidate.startswith(js) and not _continues(candidate, js)):
            out.append(name)
    return out


def _continues(candidate: str, js: str) -> bool:
    """Whether ``candidate`` goes on past ``js`` with more of a JSON number or word."""
    rest = candidate[len(js) :]
    return bool(rest) and (rest[0].isalnum() or rest[0] in "._")


def decision_probabilities(logprobs: Any, text: str, decision: Decision) -> dict[str, float] | None:
    """Each allowed value's probability (keys ``str(value)``), or None when unreadable."""
    if not isinstance(logprobs, Mapping):
        return None
    content = logprobs.get("content")
    if not isinstance(content, Sequence) or not content:
        return None
    start = _value_start(text, decision.key)
    if start is None:
        return None
    values = {str(v): json.dumps(v) for v in decision.values}
    offset = 0
    so_far = ""
    for entry in content:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("token"), str):
            return None
        token: str = entry["token"]
        end = offset + len(token)
        if end <= start:
            offset = end
            continue
        lead = max(0, start - offset)  # characters of this token before the value
        head = token[:lead]
        chosen = so_far + token[lead:]
        if len(_fits(chosen, values)) > 1:  # every value still possible: not decided yet
            so_far = chosen
            offset = end
            continue
        return _at_branch(entry, head, so_far, values)
    return None


def _at_branch(
    entry: Mapping[str, Any], head: str, so_far: str, values: Mapping[str, str]
) -> dict[str, float] | None:
    alternatives = entry.get("top_logprobs")
    if not isinstance(alternatives, Sequence) or not alternatives:
        alternatives = [{"token": entry.get("token"), "logprob": entry.get("logprob")}]
    mass = dict.fromkeys(values, 0.0)
    for alt in alternatives:
        if not isinstance(alt, Mapping):
            continue
        tok, lp = alt.get("token"), alt.get("logprob")
        if not isinstance(tok, str) or not isinstance(lp, int | float) or not math.isfinite(lp):
            continue
        if not tok.startswith(head):
            continue
        fits = _fits(so_far + tok[len(head) :], values)
        if len(fits) == 1:
            mass[fits[0]] += math.exp(min(float(lp), 0.0))
    total = sum(mass.values())
    if not total > 0:
        return None
    return {k: v / total for k, v in mass.items()}
