"""Judges are named by spec strings and built here.

``"local"``, ``"openai/gpt-4.1-mini"``, ``"anthropic/claude-..."``, ``"litellm/..."``,
``"fake"``: the part before the first ``/`` picks the backend, the rest is the
model. A :class:`Judge` object or a ``generate_fn(system, user)`` callable is
accepted as well. Backends with optional SDKs are imported only when used.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .._errors import ConfigError
from . import _builtins
from ._base import Judge, JudgeConfig
from ._callable import CallableJudge
from ._reliable import make_reliable
from ._spec import split_spec

__all__ = ["get_judge", "judge_backends", "register_judge"]

JudgeFactory = Callable[[str, JudgeConfig], Judge]
_FACTORIES: dict[str, JudgeFactory] = {}


def register_judge(prefix: str, factory: JudgeFactory) -> None:
    """Register ``factory(model, config)`` for specs starting with ``prefix``."""
    _FACTORIES[prefix] = factory


def judge_backends() -> list[str]:
    """The registered backend prefixes."""
    _load_builtins()
    return sorted(_FACTORIES)


def _load_builtins() -> None:
    if _FACTORIES.get("fake") is not None:
        return

    _builtins.register_all(register_judge)


def _backend_for_model(model: str) -> str:
    lowered = model.lower()
    if lowered.startswith("claude"):
        return "anthropic"
    if lowered.endswith(".gguf"):
        return "local"
    return "openai"


def get_judge(spec: Any, config: JudgeConfig | None = None, **options: Any) -> Judge:
    """Build a judge from a spec string, a Judge, or a ``generate_fn`` callable.

    ``options`` override fields of ``config`` (see :class:`JudgeConfig`).

    Raises:
        ConfigError: the spec names no backend (the message lists the valid ones),
            or the backend's optional extra is not installed.
    """
    cfg = config or JudgeConfig()
    if options:
        try:
            cfg = replace(cfg, **options)
        except TypeError as e:
            raise ConfigError(f"unknown judge option: {e}") from None
    if isinstance(spec, Judge):
        return spec

    if callable(spec):
        judge = CallableJudge(spec, cfg)
        return make_reliable(judge, cfg, "callable", judge.name.partition("/")[2])
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"judge spec {spec!r} is not a string, Judge or callable")
    _load_builtins()
    prefix, model = split_spec(spec)
    factory = _FACTORIES.get(prefix)
    if factory is None:
        near = difflib.get_close_matches(prefix, list(_FACTORIES), n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        if not model and not near:  # a bare model name: say which backend to put before it
            guess = _backend_for_model(prefix)
            hint = f"; a model name needs its backend, e.g. {guess + '/' + prefix!r}"
        raise ConfigError(
            f"unknown judge {spec!r}: valid backends are "
            + ", ".join(repr(p) for p in sorted(_FACTORIES))
            + hint
        )
    return make_reliable(factory(model, cfg), cfg, prefix, model)
