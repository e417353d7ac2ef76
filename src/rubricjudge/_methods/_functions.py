"""The registry of code a rubric may refer to: scoring functions and JSON Schemas.

A rubric file is data. It names a function (``function_ref``) or a schema
(``schema_ref``); the code side decides what those names mean:

* functions registered with :meth:`FunctionRegistry.register` (also a decorator);
* ``module.path:function`` imported only when ``allow_imports`` lists the module
  (or a parent package) — never because a rubric file says so — and only a public
  function defined in that module itself: no attribute paths (``myapp:os.system``),
  no private or dunder names, no re-exported or built-in callables;
* the built-in meta-rubric checks under ``rubricjudge.meta:*`` (no import needed);
* schemas registered with :meth:`FunctionRegistry.register_schema`, or JSON files
  under a directory listed in ``schema_dirs``. URLs are never fetched.
"""

from __future__ import annotations

import asyncio
import difflib
import importlib
import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from .._errors import ConfigError
from .._limits import json_loads
from .._lint._meta import builtin_function

__all__ = ["BUILTIN_PREFIX", "FunctionRegistry", "FunctionResult", "call_function"]

BUILTIN_PREFIX = "rubricjudge.meta:"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ScoringFunction = Callable[[Any], Any]


@dataclass(frozen=True)
class FunctionResult:
    """What a scoring function may return when it has evidence or notes to add.

    ``level`` is a level id, option label, verdict or bool, as a plain return is.
    """

    level: Any
    evidence: list[str] = field(default_factory=list)
    notes: str = ""


def _module_allowed(module: str, allowed: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in allowed)


class FunctionRegistry:
    """Named scoring functions and schemas that rubrics refer to.

    Args:
        functions: initial ``{ref: function}`` entries.
        allow_imports: module prefixes whose ``module:function`` refs may be imported
            when not registered (``["myapp.scoring"]`` allows ``myapp.scoring.x:f``).
        schemas: initial ``{ref: schema}`` entries for ``schema_ref``.
        schema_dirs: directories from which ``schema_ref`` may load a relative
            ``.json`` path; a path that leaves the directory is refused.
    """

    def __init__(
        self,
        functions: Mapping[str, ScoringFunction] | None = None,
        *,
        allow_imports: Iterable[str] = (),
        schemas: Mapping[str, Mapping[str, Any]] | None = None,
        schema_dirs: Iterable[str | Path] = (),
    ) -> None:
        self._functions: dict[str, ScoringFunction] = {}
        self._schemas: dict[str, dict[str, Any]] = {}
        self.allow_imports: tuple[str, ...] = tuple(p.strip() for p in allow_imports if p.strip())
        self.schema_dirs: tuple[Path, ...] = tuple(Path(d).resolve() for d in schema_dirs)
        for ref, fn in (functions or {}).items():
            self.register(ref, fn)
        for ref, schema in (schemas or {}).items():
            self.register_schema(ref, schema)

    @classmethod
    def coerce(
        cls, value: FunctionRegistry | Mapping[str, ScoringFunction] | None
    ) -> FunctionRegistry:
        """Return a registry from a registry, a ``{ref: function}`` mapping, or None."""
        if isinstance(value, FunctionRegistry):
            return value
        if value is None:
            return cls()
        if isinstance(value, Mapping):
            return cls(value)
        raise ConfigError(
            f"functions is {type(value).__name__}; "
            "give a FunctionRegistry or a {ref: function} dict"
        )

    # -- functions ---------------------------------------------------------------
    @overload
    def register(self, ref: str, fn: ScoringFunction) -> ScoringFunction: ...
    @overload
    def register(
        self, ref: str, fn: None = None
    ) -> Callable[[ScoringFunction], ScoringFunction]: ...
    def register(
        self, ref: str, fn: ScoringFunction | None = None
    ) -> ScoringFunction | Callable[[ScoringFunction], ScoringFunction]:
        """Register ``fn`` under ``ref``; without ``fn``, return a decorator that does."""
        if not isinstance(ref, str) or not ref.strip():
            raise ConfigError(f"function ref {ref!r} must be a non-empty string")
        if ref.startswith(BUILTIN_PREFIX):
            raise ConfigError(f"function ref {ref!r} is reserved for rubricjudge's built-ins")

        def add(f: ScoringFunction) -> ScoringFunction:
            if not callable(f):
                raise ConfigError(f"function registered as {ref!r} is not callable: {f!r}")
            self._functions[ref] = f
            return f

        return add(fn) if fn is not None else add

    def __contains__(self, ref: object) -> bool:
        return isinstance(ref, str) and (ref in self._functions or ref.startswith(BUILTIN_PREFIX))

    def names(self) -> list[str]:
        """Return the registered function refs, sorted (built-ins not included)."""
        return sorted(self._functions)

    def resolve(self, ref: str) -> ScoringFunction:
        """Return the function ``ref`` names.

        Raises:
            ConfigError: not registered and not importable under ``allow_imports``;
                the message says how to register or allow it.
        """
        if ref in self._functions:
            return self._functions[ref]
        if ref.startswith(BUILTIN_PREFIX):
            return builtin_function(ref[len(BUILTIN_PREFIX) :])
        module, sep, attr = ref.partition(":")
        if not sep or not module or not attr:
            near = difflib.get_close_matches(ref, self.names(), n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            known = ", ".join(repr(n) for n in self.names()) or "(none registered)"
            raise ConfigError(
                f"function_ref {ref!r} is not registered (registered: {known}){hint}; "
                f"register it with FunctionRegistry.register({ref!r}, fn)"
            )
        if not _module_allowed(module, self.allow_imports):
            raise ConfigError(
                f"function_ref {ref!r} is not registered and module {module!r} may not be "
                f"imported; register it with FunctionRegistry.register({ref!r}, fn) or allow "
                f"the import with FunctionRegistry(allow_imports=[{module!r}])"
            )
        if not _IDENTIFIER.fullmatch(attr) or attr.startswith("_"):
            raise ConfigError(
                f"function_ref {ref!r}: an imported ref names one public function of the "
                f"module, like '{module}:score'; not an attribute path, a private name or a "
                "dunder. Register anything else with FunctionRegistry.register"
            )
        if not all(_IDENTIFIER.fullmatch(p) for p in module.split(".")):
            raise ConfigError(f"function_ref {ref!r}: {module!r} is not a module path")
        try:
            mod = importlib.import_module(module)
            obj: Any = getattr(mod, attr)
        except (ImportError, AttributeError) as e:
            raise ConfigError(f"function_ref {ref!r} could not be imported: {e}") from None
        if not inspect.isfunction(obj) or getattr(obj, "__module__", None) != mod.__name__:
            raise ConfigError(
                f"function_ref {ref!r} names {type(obj).__name__} {attr!r}, not a function "
                f"defined in {module!r} (re-exported and built-in callables are refused)"
            )
        self._functions[ref] = obj
        return obj

    # -- schemas -------------------------------------------------------------------
    def register_schema(self, ref: str, schema: Mapping[str, Any]) -> None:
        """Register a JSON Schema under ``ref`` for criteria with ``schema_ref``."""
        if not isinstance(schema, Mapping):
            raise ConfigError(
                f"schema registered as {ref!r} is {type(schema).__name__}, not a dict"
            )
        self._schemas[ref] = dict(schema)

    def resolve_schema(self, ref: str) -> dict[str, Any]:
        """Return the schema ``ref`` names: registered, or a JSON file under ``schema_dirs``.

        Raises:
            ConfigError: a URL, an unknown ref, or a path outside every allowed directory.
        """
        if ref in self._schemas:
            return self._schemas[ref]
        if "://" in ref or ref.startswith(("http:", "https:", "file:")):
            raise ConfigError(
                f"schema_ref {ref!r} is a URL; rubricjudge never fetches schemas. Register it with "
                f"FunctionRegistry.register_schema({ref!r}, schema)"
            )
        rel = Path(ref)
        for base in self.schema_dirs:
            path = (base / rel).resolve()
            if not rel.is_absolute() and path.is_relative_to(base) and path.is_file():
                try:
                    data = json_loads(path.read_text(encoding="utf-8"), source=str(path))
                except (OSError, ValueError) as e:
                    raise ConfigError(f"schema_ref {ref!r} ({path}) is not JSON: {e}") from None
                if not isinstance(data, dict):
                    raise ConfigError(f"schema_ref {ref!r} ({path}) is not a JSON object")
                self._schemas[ref] = data
                return data
        dirs = ", ".join(str(d) for d in self.schema_dirs) or "(none allowed)"
        raise ConfigError(
            f"schema_ref {ref!r} is neither registered nor a relative path to a file under the "
            f"allowed schema directories ({dirs}); register it with "
            f"FunctionRegistry.register_schema({ref!r}, schema) or pass schema_dirs=[...]"
        )


async def call_function(fn: ScoringFunction, target: Any) -> Any:
    """Call ``fn(target)``: awaited when async, in a worker thread when sync."""
    if inspect.iscoroutinefunction(fn):
        result = await fn(target)
    else:
        result = await asyncio.to_thread(fn, target)
    if inspect.isawaitable(result):
        result = await result
    return result
