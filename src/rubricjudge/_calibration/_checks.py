"""What a calibration file may hold: group ids, labels that fit them, where a value is.

Kept apart from the model so that a new check is one function here, and a new
optional field of the model needs nothing but its default.
"""

from __future__ import annotations

import hashlib
import json
import re

__all__ = [
    "ANSWERS",
    "PARAMETER_LIMIT",
    "POSITIONS",
    "PROBE_LIMIT",
    "check_id",
    "check_labels",
    "check_parameter",
    "labels_id",
    "where",
]

POSITIONS = "pooled:positions:"

PARAMETER_LIMIT = 100.0
"""The largest scale or bias a calibration may hold, either sign. `calibrate` fits them
with a pull towards no change and writes values of a few units; 1e308 is no fit, and
would turn every probability into NaN."""
PROBE_LIMIT = 1e6
"""The largest number a probe may hold, either sign (its weights are per hidden-state
unit, which may be small, so they get more room)."""


def check_parameter(value: float, what: str, limit: float = PARAMETER_LIMIT) -> None:
    """Raise ValueError, naming ``what``, when ``value`` is not finite or beyond ``limit``."""
    import math

    if not math.isfinite(value):
        raise ValueError(f"{what} is {value!r}; it must be a finite number")
    if abs(value) > limit:
        raise ValueError(
            f"{what} is {value!r}, not a fitted value: it must lie from {-limit:g} to {limit:g}"
        )


def labels_id(labels: list[str]) -> str:
    """The short hash of an ordered list of option labels (the ``pooled:options:`` ids)."""
    text = json.dumps(labels, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


_HEX16 = re.compile(r"[0-9a-f]{16}")
ANSWERS = frozenset({"MET", "UNMET", "CANNOT_ASSESS"})


def check_labels(gid: str, labels: list[str]) -> None:
    """Raise ValueError, saying why, when ``labels`` cannot be those of group ``gid``."""
    if len(labels) < 2:
        raise ValueError("a group calibrates at least 2 labels")
    if len(set(labels)) != len(labels) or not all(labels):
        raise ValueError(f"labels must be distinct and not empty, got {labels!r}")
    binary = set(labels) in ({"MET", "UNMET"}, {"MET", "UNMET", "CANNOT_ASSESS"})
    if gid in ("pooled:positive", "pooled:negative"):
        if not binary:
            raise ValueError(
                f"a binary group's labels are MET, UNMET and optionally CANNOT_ASSESS, "
                f"got {labels!r}"
            )
    elif gid.startswith(POSITIONS):
        n = int(gid.rsplit(":", 1)[1])
        if sorted(labels, key=lambda x: (len(x), x)) != [str(i) for i in range(1, n + 1)]:
            raise ValueError(
                f"a positions group of {n} options is labelled 1 to {n}, got {labels!r}"
            )
    elif gid.startswith("pooled:options:"):
        if labels_id(labels) != gid.removeprefix("pooled:options:"):
            raise ValueError(
                f"labels {labels!r} are not the options this group was fitted on (its id "
                "hashes them, in order)"
            )
    elif set(labels) & ANSWERS and not binary:
        raise ValueError(f"labels mix MET/UNMET/CANNOT_ASSESS with option labels: {labels!r}")


def check_id(gid: str) -> None:
    """Raise ValueError when ``gid`` is not a group id ``rubricjudge calibrate`` writes."""
    kind, _, rest = gid.partition(":")
    ok = False
    if kind == "criterion" or gid.startswith("pooled:options:"):
        ok = bool(_HEX16.fullmatch(rest.removeprefix("options:")))
    elif gid in ("pooled:positive", "pooled:negative"):
        ok = True
    elif gid.startswith(POSITIONS):
        scale_type, _, n = gid.removeprefix(POSITIONS).partition(":")
        ok = scale_type.isidentifier() and n.isdigit() and int(n) >= 2 and n[0] != "0"
    if not ok:
        raise ValueError(
            f"{gid!r} is not a group id; ids are criterion:<16 hex digits>, "
            "pooled:positive, pooled:negative, pooled:options:<16 hex digits> or "
            "pooled:positions:<scale type>:<number of options>"
        )


def where(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a path into the file: ``groups[1].bias``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"
