"""OpenRubricRL rubric migration from the v1 schema to v2.

The v2 schema (the OpenRubricRL seed's migration guide) changed four things, and
:func:`migrate_openrubricrl` applies each to the raw data, listing every change:

1. ``version`` is required: a missing one is set (``default_version``, 1.0.0 by
   default); one that is nearly semver (``v1.2``, ``2``) is completed to
   ``MAJOR.MINOR.PATCH``; anything else is a problem.
2. Criterion weights must sum to 1: each weight becomes ``w / sum(w)`` (rounded
   to 6 places, the last one absorbing the rounding so the sum is 1 exactly); a
   missing weight counts as 1 before that. Negative or all-zero weights cannot be
   normalised and are problems.
3. ``domain`` is one of code, dialogue, creative_writing, reasoning, general: any
   other value becomes ``general``.
4. Examples need an ``explanation``. An example without one is a problem (the
   migration refuses: an invented explanation would be shown to judges as if a
   person wrote it) unless ``placeholder_explanations`` is set, which writes
   :data:`PLACEHOLDER` and lists each one as a change to review. A missing
   ``input`` becomes ``""``; a missing ``score`` is a problem.

Also required in v2 and filled in when missing: ``name`` (from the file name)
and ``scale`` (0 to 10, continuous). The result is checked by the OpenRubricRL
loader before anything is written.
"""

from __future__ import annotations

import math
import re
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

from .._errors import Problem
from .._model._criterion import SEMVER
from ._openrubricrl import DOMAINS

__all__ = ["PLACEHOLDER", "Change", "MigrationResult", "migrate_openrubricrl"]

PLACEHOLDER = "TODO: explain this score (added by rubricjudge migrate)"
TARGET_VERSIONS = ("2.0.0",)
_NEAR_SEMVER = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$")
_ORDER = ("name", "version", "description", "domain", "scale", "criteria", "hybrid_metrics")
_DEFAULT_SCALE = {"min": 0.0, "max": 10.0, "type": "continuous"}


@dataclass(frozen=True)
class Change:
    """One change the migration made: where, what, the old and the new value."""

    path: str
    message: str
    old: Any = None
    new: Any = None
    review: bool = False

    def __str__(self) -> str:
        flag = " [review]" if self.review else ""
        return f"{self.path or '<root>'}: {self.message}{flag}"


@dataclass
class MigrationResult:
    """The migrated data, the changes made, and the problems that block the migration."""

    data: dict[str, Any]
    changes: list[Change] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing blocks writing the result."""
        return not self.problems


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _version(data: dict[str, Any], default: str, out: MigrationResult) -> None:
    v = data.get("version")
    if v is None:
        data["version"] = default
        out.changes.append(
            Change("version", f"version was missing; set to {default!r}", None, default)
        )
        return
    m = _NEAR_SEMVER.match(str(v).strip())
    if m is None:
        out.problems.append(
            Problem("version", f"{v!r} is not a version; write it as MAJOR.MINOR.PATCH")
        )
        return
    fixed = ".".join(p or "0" for p in m.groups())
    if fixed != v:
        data["version"] = fixed
        out.changes.append(Change("version", f"version {v!r} -> {fixed!r}", v, fixed))


def _weights(criteria: list[Any], out: MigrationResult) -> None:
    raw: list[float] = []
    for i, c in enumerate(criteria):
        w = c.get("weight")
        if w is None:
            raw.append(1.0)
            out.changes.append(
                Change(
                    f"criteria[{i}].weight", "weight was missing; counted as 1 before normalising"
                )
            )
        elif not _number(w) or w < 0:
            out.problems.append(
                Problem(
                    f"criteria[{i}].weight", f"{w!r} is not a non-negative number; fix it by hand"
                )
            )
            return
        else:
            raw.append(float(w))
    total = math.fsum(raw)
    if total <= 0:
        out.problems.append(Problem("criteria", "every weight is 0; give the criteria weights"))
        return
    new = [round(w / total, 6) for w in raw]
    new[-1] = round(1.0 - math.fsum(new[:-1]), 6)
    if abs(total - 1.0) <= 1e-9 and all(abs(a - b) <= 1e-9 for a, b in zip(raw, new, strict=True)):
        return
    for i, (c, old, w) in enumerate(zip(criteria, raw, new, strict=True)):
        name = c.get("name", f"#{i}")
        c["weight"] = w
        out.changes.append(
            Change(
                f"criteria[{i}].weight",
                f"{name!r}: {old:g} -> {w:g} (weights summed to {total:g})",
                old,
                w,
            )
        )


def _examples(criteria: list[Any], placeholders: bool, out: MigrationResult) -> None:
    for i, c in enumerate(criteria):
        examples = c.get("examples")
        if not isinstance(examples, dict):
            continue
        for level, items in examples.items():
            if not isinstance(items, list):
                continue
            for j, ex in enumerate(items):
                if not isinstance(ex, dict):
                    continue
                here = f"criteria[{i}].examples.{level}[{j}]"
                if "score" not in ex:
                    out.problems.append(
                        Problem(f"{here}.score", "an example needs a score; add it")
                    )
                if "input" not in ex:
                    ex["input"] = ""
                    out.changes.append(Change(f"{here}.input", "input was missing; set to ''"))
                if not str(ex.get("explanation") or "").strip():
                    if placeholders:
                        ex["explanation"] = PLACEHOLDER
                        out.changes.append(
                            Change(
                                f"{here}.explanation",
                                "explanation was missing; placeholder written",
                                None,
                                PLACEHOLDER,
                                review=True,
                            )
                        )
                    else:
                        out.problems.append(
                            Problem(
                                f"{here}.explanation",
                                "v2 examples need an explanation; write one (why this score?), or "
                                "pass --placeholder-explanations to mark them for review",
                            )
                        )


def migrate_openrubricrl(
    data: Any,
    *,
    to_version: str = "2.0.0",
    default_version: str = "1.0.0",
    name: str | None = None,
    placeholder_explanations: bool = False,
) -> MigrationResult:
    """Migrate raw OpenRubricRL data (a parsed v1 file) to the v2 schema.

    Args:
        data: the parsed file (not changed; the result holds a copy).
        to_version: the schema version to reach; only ``"2.0.0"`` exists.
        default_version: the rubric version to set when it has none.
        name: the rubric name to set when it has none (e.g. the file's stem).
        placeholder_explanations: write :data:`PLACEHOLDER` for missing example
            explanations instead of refusing.
    """
    if to_version not in TARGET_VERSIONS:
        out = MigrationResult(data={})
        out.problems.append(
            Problem(
                "", f"cannot migrate to {to_version!r}; known targets: {', '.join(TARGET_VERSIONS)}"
            )
        )
        return out
    if not isinstance(data, dict):
        out = MigrationResult(data={})
        out.problems.append(
            Problem("", f"an OpenRubricRL rubric is a mapping, got {type(data).__name__}")
        )
        return out
    out = MigrationResult(data=deepcopy(data))
    d = out.data
    if not SEMVER.match(default_version):
        out.problems.append(
            Problem("version", f"the version to set, {default_version!r}, is not MAJOR.MINOR.PATCH")
        )
    if not d.get("name"):
        if name:
            d["name"] = name
            out.changes.append(Change("name", f"name was missing; set to {name!r}", None, name))
        else:
            out.problems.append(Problem("name", "the rubric has no name; add one"))
    _version(d, default_version, out)
    domain = d.get("domain")
    if domain is not None and domain not in DOMAINS:
        d["domain"] = "general"
        out.changes.append(
            Change(
                "domain",
                f"domain {domain!r} is not a v2 domain; set to 'general'",
                domain,
                "general",
            )
        )
    if d.get("scale") is None:
        d["scale"] = dict(_DEFAULT_SCALE)
        out.changes.append(
            Change("scale", "scale was missing; set to 0-10 continuous", None, d["scale"])
        )
    criteria = d.get("criteria")
    if not isinstance(criteria, list) or not criteria:
        out.problems.append(Problem("criteria", "a rubric needs a non-empty list of criteria"))
        return out
    if not all(isinstance(c, dict) for c in criteria):
        out.problems.append(Problem("criteria", "every criterion must be a mapping"))
        return out
    _weights(criteria, out)
    _examples(criteria, placeholder_explanations, out)
    out.data = {k: d[k] for k in _ORDER if k in d} | {k: v for k, v in d.items() if k not in _ORDER}
    return out
