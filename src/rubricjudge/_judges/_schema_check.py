"""Whether a reply answers its request's schema: what may be cached or replayed.

A reply the grader would reject (a wrong type, an option out of range, a missing
key) must not be stored and handed back on every later run: the response cache and
the run store keep and replay only replies that validate against the request's
JSON Schema (jsonschema-rs, no remote references). Validators are built once per
schema object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["schema_accepts"]

_VALIDATORS: dict[int, tuple[Mapping[str, Any], Any]] = {}


def schema_accepts(schema: Mapping[str, Any], data: Any) -> bool:
    """True when ``data`` is valid under ``schema`` (a schema that cannot be built: True)."""
    got = _VALIDATORS.get(id(schema))
    if got is None or got[0] is not schema:
        import jsonschema_rs

        try:
            validator = jsonschema_rs.validator_for(dict(schema))
        except Exception:  # not a schema we can check: do not block caching on it
            validator = None
        if len(_VALIDATORS) > 512:
            _VALIDATORS.clear()
        got = _VALIDATORS[id(schema)] = (schema, validator)
    validator = got[1]
    if validator is None:
        return True
    try:
        return bool(validator.is_valid(data))
    except Exception:  # data that cannot even be checked (NaN, huge ints) is not valid
        return False
