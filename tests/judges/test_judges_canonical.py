"""canonical_json: the text json.dumps gives, byte for byte (cache keys and run hashes).

A cache key or a request hash that changed would make every cached answer miss and
every resumed run ask its judgments again (issue 39 made the encoding faster).
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

import pytest

from rubricjudge._judges._canonical import canonical_json


class _Text(str):
    pass


class _Int(int):
    pass


class _Float(float):
    pass


class _Dict(dict[str, Any]):
    pass


SCHEMA = {
    "type": "object",
    "properties": {"reason": {"type": "string"}, "verdict": {"enum": ["MET", "UNMET"]}},
    "required": ["reason", "verdict"],
    "additionalProperties": False,
}
CASES: list[dict[str, Any]] = [
    {"system": "s", "user": "u", "schema": SCHEMA, "temperature": 0.0, "seed": None},
    {"schema": SCHEMA},  # nothing before or after it
    {"a": 1, "schema": SCHEMA},  # nothing after
    {"schema": SCHEMA, "z": [1, 2.5, None, True]},  # nothing before
    {"user": 'héllo \u2028 \ud83d\ude00 "q" \\ \n', "schema": {"b": 1, "a": {"d": 2, "c": 3}}},
    {"schema": {}, "user": "empty schema"},
    {"schema": "not a mapping", "user": "u"},
    {"user": "no schema", "identity": {"base_url": ["http://b", "http://a"]}},
    {"schema": MappingProxyType({"x": 1}), "v": 1},  # a read-only schema
    {"schema": SCHEMA, "odd": object()},  # default=str for what JSON cannot hold
    # the values written by hand must read as json writes them
    {"extra_params": {"schema": None, "n": [1, (2, 3)]}, "schema": SCHEMA},  # a nested "schema"
    {"f": [0.0, -0.0, 1e-07, 1e300, float("nan"), float("inf"), -float("inf"), 2.5]},
    {"i": [0, -1, 10**30, True, False, None], "t": (1, "x"), "e": [], "d": {}},
    {"deep": {"a": {"b": {"c": {"d": [{"e": [1, {"f": "g"}]}]}}}}},  # past the depth by hand
    {"keys": {3: "int key", 1: "one"}, "b": {None: 1}, "c": {True: 2}},  # keys json makes text
    {"sub": _Text("a str subclass"), "num": _Int(7), "flt": _Float(1.5), "map": _Dict(a=1)},
    {"user": "long " * 40 + "\u00e9\u2028\ud83d\ude00", "system": "s" * 200, "schema": SCHEMA},
    {"schema": SCHEMA, "system": 'quotes "schema": null inside ' * 5},
]


@pytest.mark.parametrize("parts", CASES)
@pytest.mark.parametrize("compact", [False, True])
def test_same_text_as_json_dumps(parts: dict[str, Any], compact: bool) -> None:
    separators = (",", ":") if compact else (", ", ": ")
    want = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str, separators=separators)
    assert canonical_json(parts, compact=compact) == want
    assert canonical_json(parts, compact=compact) == want  # the schema's text reused


def test_a_new_schema_at_a_reused_address_is_encoded_again() -> None:
    for i in range(300):  # past the memo's size, with schemas freed and ids reused
        schema = {"type": "object", "n": i}
        assert canonical_json({"schema": schema}) == json.dumps(
            {"schema": schema}, sort_keys=True, ensure_ascii=False
        )


def test_a_new_string_at_a_reused_address_is_encoded_again() -> None:
    for i in range(1200):  # long strings past the memo's size, freed and their ids reused
        text = f"{i} " + "x" * 100 + ("\u00e9" if i % 2 else '"')
        want = json.dumps({"user": text}, sort_keys=True, ensure_ascii=False)
        assert canonical_json({"user": text}) == want
        assert canonical_json({"user": text}) == want  # the kept text


def test_a_circular_value_is_refused_as_json_refuses_it() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        canonical_json({"a": loop})
