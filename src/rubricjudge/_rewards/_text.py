"""The response inside a trainer's query: the query minus its prompt.

OpenRLHF sends each rollout as ``query`` (the prompt and the response decoded as
one text) beside ``prompts``. The response is what follows the prompt. Decoding
tokens back to text does not always give the prompt back exactly (the trainer
may have cut the prompt from the left to fit its context, or a tokenizer may add
a start token), so when the query does not begin with the prompt, the response
starts after the first place where the prompt's last :data:`TAIL` characters
appear. A query that holds neither is an error for that rollout, never a guess.
Trailing end-of-turn tokens (``<|im_end|>``, ``</s>``, ...) are dropped: they are
the tokenizer's, not the model's answer.
"""

from __future__ import annotations

import re

__all__ = ["TAIL", "response_of"]

TAIL = 200
_END_TOKENS = re.compile(r"(?:\s*(?:<\|[A-Za-z0-9_]{1,40}\|>|</s>|<eos>|<\|end\|>))+\s*\Z")


def response_of(query: str, prompt: str | None) -> str:
    """The response part of ``query`` (its text after ``prompt``).

    Raises:
        ValueError: ``query`` holds neither ``prompt`` nor the end of it.
    """
    if not prompt:
        return _strip_end(query)
    if query.startswith(prompt):
        return _strip_end(query[len(prompt) :])
    tail = prompt[-TAIL:]
    at = query.find(tail)
    if at < 0:
        raise ValueError(
            "the query does not contain its prompt (nor the prompt's last "
            f"{min(TAIL, len(prompt))} characters); send query = prompt + response"
        )
    return _strip_end(query[at + len(tail) :])


def _strip_end(text: str) -> str:
    return _END_TOKENS.sub("", text)
