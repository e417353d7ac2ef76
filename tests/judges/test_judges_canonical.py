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
