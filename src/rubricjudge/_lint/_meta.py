"""The meta-rubric: a rubric whose criteria check another rubric's structure.

Its five criteria are ``function`` criteria referring to the built-in checks
``rubricjudge.meta:check_*``, which every :class:`FunctionRegistry` resolves
without importing anything. The target is a :class:`Rubric`, rubric data in any
format, or its JSON text. Each check reuses :mod:`rubricjudge._lint._rules`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._errors import ConfigError
from .._formats._detect import detect_format
from .._formats._load import load_data
from .._limits import json_loads
from .._model._rubric import Criterion, CriterionOption, Rubric, ScoringMethod, ScoringType
from ._rules import lint_structure

__all__ = ["BUILTINS", "build_meta_rubric", "builtin_function"]


def _loaded(target: Any) -> tuple[Rubric | None, str | None]:
    """Return (rubric or None when it has no criteria, its format)."""
    if isinstance(target, Rubric):
        fmt = target.metadata.get("format")
        return target, fmt if isinstance(fmt, str) else None
    if isinstance(target, str | bytes):
        target = json_loads(target)
    if isinstance(target, Mapping) and not target.get("criteria") and "rubrics" not in target:
        return None, None

    detected = detect_format(target)
    # native data names no source format; lint then reads rubric.metadata["format"]
    return load_data(target), None if detected == "native" else detected


def _checks(target: Any, check: str) -> tuple[Rubric | None, list[Any]]:
    rubric, fmt = _loaded(target)
    if rubric is None:
        return None, []
    return rubric, [f for f in lint_structure(rubric, format=fmt) if f.check == check]


def check_criteria_coverage(target: Any) -> str:
    """Return ``pass`` when the rubric has at least one criterion, else ``fail``."""
    rubric, _ = _loaded(target)
    return "pass" if rubric is not None and rubric.criteria else "fail"


def check_criteria_independence(target: Any) -> str:
    """Return ``pass`` (no repeats), ``partial`` (requirements repeat) or ``fail`` (names do)."""
    _, found = _checks(target, "independence")
    if any(f.path.endswith(".name") for f in found):
        return "fail"
    return "partial" if found else "pass"


def check_weight_distribution(target: Any) -> str:
    """Return ``pass`` when the weights follow the format's rule (see ``_lint``), else ``fail``."""
    rubric, found = _checks(target, "weights")
    if rubric is None:
        return "fail"
    return "fail" if any(f.severity == "error" for f in found) else "pass"


def check_threshold(target: Any) -> str:
    """Return ``pass``, ``too_high`` (unreachable) or ``too_low`` (everything passes)."""
    rubric, found = _checks(target, "threshold")
    if rubric is None:
        return "too_high"
    if any(f.severity == "error" for f in found):
        return "too_high"
    return "too_low" if any(f.severity == "warning" for f in found) else "pass"


def check_level_ordering(target: Any) -> str:
    """Return ``pass`` when every ordinal criterion lists its levels in value order."""
    _, found = _checks(target, "levels")
    return "fail" if any("value order" in f.message for f in found) else "pass"


BUILTINS: dict[str, Callable[[Any], str]] = {
    "check_criteria_coverage": check_criteria_coverage,
    "check_criteria_independence": check_criteria_independence,
    "check_weight_distribution": check_weight_distribution,
    "check_threshold": check_threshold,
    "check_level_ordering": check_level_ordering,
}


def builtin_function(name: str) -> Callable[[Any], str]:
    """Return the built-in check ``rubricjudge.meta:<name>``.

    Raises:
        ConfigError: no such built-in (the message lists them).
    """
    try:
        return BUILTINS[name]
    except KeyError:
        valid = ", ".join(f"rubricjudge.meta:{n}" for n in BUILTINS)
        raise ConfigError(
            f"no built-in function 'rubricjudge.meta:{name}'; valid: {valid}"
        ) from None


def _opt(level: str, value: float, description: str) -> CriterionOption:
    return CriterionOption(
        id=level, label=level.replace("_", " ").title(), value=value, description=description
    )


def _criterion(cid: str, name: str, text: str, levels: list[CriterionOption]) -> Criterion:
    method = ScoringMethod(type=ScoringType.FUNCTION, function_ref=f"rubricjudge.meta:check_{cid}")
    return Criterion(
        id=cid, name=name, description=text, weight=0.2, options=levels, scoring_method=method
    )


def build_meta_rubric() -> Rubric:
    """Return the meta-rubric: five structural checks, weight 0.2 each, pass at 0.7."""
    fail_pass = [_opt("fail", 0.0, "The check fails"), _opt("pass", 1.0, "The check passes")]
    criteria = [
        _criterion(
            "criteria_coverage",
            "Criteria Coverage",
            "The rubric defines at least one criterion.",
            fail_pass,
        ),
        _criterion(
            "criteria_independence",
            "Criteria Independence",
            "No two criteria share a name or a requirement.",
            [
                _opt("fail", 0.0, "Two criteria share a name"),
                _opt("partial", 0.5, "Two criteria share a requirement"),
                _opt("pass", 1.0, "Every criterion is distinct"),
            ],
        ),
        _criterion(
            "weight_distribution",
            "Weight Distribution",
            "Weights follow the format's rule (sum to 1 where the format requires it), with "
            "at least one positive weight.",
            fail_pass,
        ),
        _criterion(
            "threshold",
            "Threshold Reasonableness",
            "The pass threshold is reachable without being met by every submission.",
            [
                _opt("too_high", 0.0, "No submission can reach the threshold"),
                _opt("too_low", 0.5, "Every submission reaches the threshold"),
                _opt("pass", 1.0, "The threshold is reachable and discriminates"),
            ],
        ),
        _criterion(
            "level_ordering",
            "Level Ordering",
            "Levels of every ordinal criterion are listed in score order.",
            fail_pass,
        ),
    ]
    return Rubric(
        criteria,
        id="rubricjudge-meta-rubric",
        name="Rubric Quality (meta-rubric)",
        description="Structural quality of a rubric definition",
        version="1.0.0",
        target_type="rubric",
        pass_threshold=0.7,
        metadata={"format": "dataknobs", "builtin": True},
    )
