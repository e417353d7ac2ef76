"""Canonical JSON of a request's parts, for the keys that name an answer.

The response cache's key and the run store's request hash are sha256 of
``json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)`` (the cache's
with compact separators). :func:`canonical_json` gives the same text, byte for byte,
faster: a grader sends the same few schemas and system prompts thousands of times,
and both keys of one call hash the same user prompt. So the ``schema`` is encoded
once per schema object, and a long string once per string object (a bounded memo
that holds what it keeps, so an id is never reused under it); the top-level dict is
joined by hand, each value encoded as ``json`` would.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping
from json.encoder import encode_basestring
from typing import Any

__all__ = ["canonical_json"]

_SPACED = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)
_COMPACT = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
_SHARED = "schema"
_MEMO: dict[tuple[int, bool], tuple[Mapping[str, Any], str]] = {}
_MEMO_MAX = 256
_TEXTS: dict[int, tuple[str, str]] = {}
_TEXTS_MAX = 512
_TEXT_MIN = 64  # shorter strings cost little to encode, and there are many
_KEYS: dict[str, str] = {}
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


def _text(value: str) -> str:
    """``value`` as a JSON string; a long one encoded once per object."""
    if len(value) < _TEXT_MIN:
        return encode_basestring(value)
    got = _TEXTS.get(id(value))
    if got is not None and got[0] is value:
        return got[1]
    text = encode_basestring(value)
    with _LOCK:
        if len(_TEXTS) >= _TEXTS_MAX:  # the oldest goes first (dicts keep their order)
            del _TEXTS[next(iter(_TEXTS))]
        _TEXTS[id(value)] = (value, text)  # holds it: its id is not reused
    return text


def _key(key: str) -> str:
    text = _KEYS.get(key)
    if text is None:
        text = encode_basestring(key)
        if len(_KEYS) < 256:
            _KEYS[key] = text
    return text


_DEPTH = 3  # deeper values go to json itself (which also refuses a circular one)


def _value(value: Any, encoder: json.JSONEncoder, seps: tuple[str, str], depth: int) -> str:
    """``value`` as ``encoder`` writes it inside an object, for the usual kinds by hand."""
    kind = type(value)
    if kind is str:
        return _text(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    if depth < _DEPTH:
        if kind is list or kind is tuple:
            return "[" + seps[0].join([_value(v, encoder, seps, depth + 1) for v in value]) + "]"
        if kind is dict and all(type(k) is str for k in value):
            return _object(value, encoder, seps, depth + 1)
    return encoder.encode(value)


def _object(
    value: dict[str, Any],
    encoder: json.JSONEncoder,
    seps: tuple[str, str],
    depth: int,
    schema: str | None = None,
) -> str:
    """A dict of text keys, sorted; ``schema``: the text of the value under "schema"."""
    item_sep, key_sep = seps
    pieces = []
    for k in sorted(value):
        v = value[k]
        if schema is not None and k == _SHARED:
            text = schema
        elif v is None:  # the usual values first, without a call each
            text = "null"
        elif type(v) is str and len(v) < _TEXT_MIN:
            text = encode_basestring(v)
        else:
            text = _value(v, encoder, seps, depth)
        pieces.append((_KEYS.get(k) or _key(k)) + key_sep + text)
    return "{" + item_sep.join(pieces) + "}"


def canonical_json(parts: Mapping[str, Any], *, compact: bool = False) -> str:
    """``json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)``, faster.

    ``compact`` uses the separators ``(",", ":")``. The value under ``"schema"``, when
    it is a mapping, is encoded once per object and spliced in at its sorted place.
    """
    encoder = _COMPACT if compact else _SPACED
    if type(parts) is not dict or not all(type(k) is str for k in parts):
        return encoder.encode(parts)  # json's own way (default=str for other mappings)
    seps = (",", ":") if compact else (", ", ": ")
    schema = parts.get(_SHARED)
    if not isinstance(schema, Mapping):
        return _object(parts, encoder, seps, 0)
    return _object(parts, encoder, seps, 0, _encoded(schema, compact))
