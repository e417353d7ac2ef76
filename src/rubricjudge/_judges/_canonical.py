"""Canonical JSON of a request's parts, for the keys that name an answer.

The response cache's key and the run store's request hash are sha256 of
``json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)`` (the cache's
with compact separators). A grader sends the same few schemas thousands of times, and
encoding a schema with sorted keys cost about half of each hash; :func:`canonical_json`
gives the same text, byte for byte, with the ``schema`` encoded once per schema object
(judges read a request's schema and never change it).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

__all__ = ["canonical_json"]

_SPACED = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)
_COMPACT = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
_SHARED = "schema"
_MEMO: dict[tuple[int, bool], tuple[Mapping[str, Any], str]] = {}
_MEMO_MAX = 256
_LOCK = threading.Lock()


def _encoded(value: Mapping[str, Any], compact: bool) -> str:
    got = _MEMO.get((id(value), compact))
    if got is not None and got[0] is value:
        return got[1]
    text = (_COMPACT if compact else _SPACED).encode(value)
    with _LOCK:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        _MEMO[(id(value), compact)] = (value, text)  # holds it: its id is not reused
    return text


def canonical_json(parts: Mapping[str, Any], *, compact: bool = False) -> str:
    """``json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)``, faster.

    ``compact`` uses the separators ``(",", ":")``. The value under ``"schema"``, when
    it is a mapping, is encoded once per object and spliced in at its sorted place.
    """
    encoder = _COMPACT if compact else _SPACED
    schema = parts.get(_SHARED)
    if not isinstance(schema, Mapping):
        return encoder.encode(parts)
    item_sep, key_sep = (",", ":") if compact else (", ", ": ")
    before = {k: v for k, v in parts.items() if k < _SHARED}
    after = {k: v for k, v in parts.items() if k > _SHARED}
    pieces = [encoder.encode(before)[1:-1]] if before else []
    pieces.append(encoder.encode(_SHARED) + key_sep + _encoded(schema, compact))
    if after:
        pieces.append(encoder.encode(after)[1:-1])
    return "{" + item_sep.join(pieces) + "}"
