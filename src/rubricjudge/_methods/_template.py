"""Decode templates: Jinja2's immutable sandbox, bounded in time and in size.

A rubric file is data from anywhere, and its ``llm_decode`` template is rendered
for every item. The sandbox keeps a template away from Python's internals; the
bounds here keep it from holding a worker or filling memory:

* rendering stops after ``RENDER_TIMEOUT_S`` seconds (2), loops without output
  included: a trace function on the template's own frames watches the clock;
* the output may be ``RENDER_MAX_CHARS`` characters long (1,000,000), and so may
  any value a call, a filter or an operator makes;
* the operations that could build a value far larger than their operands are
  checked before they run: ``*``, ``**`` and ``%``, numeric arguments (widths,
  counts), ``replace``, ``join`` and ``sum``, format strings with huge field widths.
  ``lipsum`` is gone, and ``namespace`` keeps only values within the bounds.

A template past a bound raises :class:`TemplateLimitError`, which the decode
method records as a ``template`` error of that criterion.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from types import FrameType
from typing import Any

import jinja2
from jinja2.nodes import EvalContext
from jinja2.runtime import Context, Macro
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import Namespace

__all__ = [
    "RENDER_MAX_CHARS",
    "RENDER_TIMEOUT_S",
    "TemplateLimitError",
    "compile_template",
    "render_bounded",
]

RENDER_TIMEOUT_S = 2.0
RENDER_MAX_CHARS = 1_000_000
_HUGE_WIDTH = re.compile(r"\d{7,}")  # a field width of a million characters or more
_TEMPLATE_FILE = "<template>"  # the code of templates compiled from a string


class TemplateLimitError(jinja2.TemplateError):
    """A decode template went past a time or size bound (see the module docstring)."""


class _Budget(threading.local):
    """The deadline of the render under way in this thread (renders run in worker threads)."""

    deadline = float("inf")

    def check(self) -> None:
        if time.monotonic() > self.deadline:
            raise TemplateLimitError(
                f"rendering took longer than {RENDER_TIMEOUT_S:g} s; simplify the template"
            )


_BUDGET = _Budget()


def _too_big(what: str, size: float) -> TemplateLimitError:
    return TemplateLimitError(
        f"{what} would be {size:,.0f} characters long, more than {RENDER_MAX_CHARS:,}"
    )


def _weight(value: Any, limit: int = RENDER_MAX_CHARS) -> int:
    """About how many characters ``value`` takes as text; counting stops past ``limit``.

    A list counts what its items weigh, not how many there are: ``[text] * n``
    holds ``n`` references but prints ``n`` copies.
    """
    total = 0
    stack = [value]
    while stack and total <= limit:
        v = stack.pop()
        if isinstance(v, str | bytes):
            total += len(v)
        elif isinstance(v, list | tuple | set | frozenset):
            total += 2 + len(v)
            stack.extend(v)
        elif isinstance(v, dict):
            total += 2 + len(v)
            stack.extend(v.keys())
            stack.extend(v.values())
        else:
            total += 1
    return total


def _sized(value: Any, what: str) -> Any:
    """``value``, unless it would print as more characters than the size bound."""
    size = _weight(value)
    if size > RENDER_MAX_CHARS:
        raise TemplateLimitError(f"{what} would be more than {RENDER_MAX_CHARS:,} characters long")
    return value


def _check_args(name: str, owner: Any, args: Iterable[Any], kwargs: Mapping[str, Any]) -> None:
    """Refuse the arguments that would make a call build an oversized value.

    ``name`` is a filter's name or ``str.<method>``; ``owner`` the string a method
    belongs to (None for filters, whose first argument is the value filtered).
    """
    values = [*args, *kwargs.values()]
    for v in values:
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > RENDER_MAX_CHARS:
            raise TemplateLimitError(f"{name}: the number {v} is over {RENDER_MAX_CHARS:,}")
    subject = [owner] if isinstance(owner, str) else []
    full = subject + values  # the string first, then the arguments, for methods and filters
    if name in ("replace", "str.replace") and len(full) >= 3:
        text, old, new = full[:3]
        if isinstance(text, str) and isinstance(old, str) and isinstance(new, str):
            hits = text.count(old) if old else len(text) + 1
            _sized_estimate(name, len(text) + hits * max(len(new) - len(old), 0))
    elif name in ("join", "str.join") and len(full) >= 2:
        sep, items = (full[0], full[1]) if subject else (full[1], full[0])
        if isinstance(items, list | tuple):
            seps = (len(sep) if isinstance(sep, str) else 0) * len(items)
            _sized_estimate(name, _weight(list(items)) + seps)
    elif name == "indent" and len(full) >= 2 and isinstance(full[0], str):
        width = full[1]
        prefix = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
        _sized_estimate(name, len(full[0]) + (full[0].count("\n") + 1) * max(prefix, 0))
    elif name == "sum" and any(isinstance(v, list | tuple | str) for v in full[1:]):
        raise TemplateLimitError("sum: adding up lists or strings is refused; use join")
    elif name in ("format", "str.format", "str.format_map") and full:
        if isinstance(full[0], str) and _HUGE_WIDTH.search(full[0]):
            raise TemplateLimitError(f"{name}: a field width of a million characters or more")


def _sized_estimate(what: str, size: int) -> None:
    if size > RENDER_MAX_CHARS:
        raise _too_big(what, size)


class _BoundedNamespace(Namespace):
    """``namespace()`` whose attributes keep values within the size bound."""

    def __setitem__(self, name: str, value: Any) -> None:
        super().__setitem__(name, _sized(value, f"namespace value {name!r}"))


class _BoundedSandbox(ImmutableSandboxedEnvironment):
    """The sandbox with the operator, call and filter checks of the module docstring."""

    intercepted_binops = frozenset({"*", "**", "%", "+"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        _BUDGET.check()
        if operator == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(seq, str | list | tuple) and isinstance(n, int) and n > 0:
                    _sized_estimate("a repetition with *", _weight(seq) * n)
        elif operator == "**" and isinstance(left, int) and isinstance(right, int):
            if right > 0 and abs(left) > 1 and left.bit_length() * right > 100_000:
                raise TemplateLimitError(f"{left} ** {right} is too large a number")
        elif operator == "%" and isinstance(left, str) and _HUGE_WIDTH.search(left):
            raise TemplateLimitError("%: a field width of a million characters or more")
        return _sized(super().call_binop(context, operator, left, right), f"{operator} result")

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        _BUDGET.check()
        # the sandbox hands str.format out wrapped; the string is on the wrapped method
        method = getattr(__obj, "__wrapped__", __obj)
        owner = getattr(method, "__self__", None)
        name = getattr(method, "__name__", "")
        if isinstance(owner, str):
            _check_args(f"str.{name}", owner, args, kwargs)
        elif isinstance(__obj, Macro):  # a recursive macro doubling its argument, say
            for value in (*args, *kwargs.values()):
                _sized(value, f"an argument of macro {__obj.name!r}")
        else:
            _check_args(name or "a call", None, args, kwargs)
        result = super().call(__context, __obj, *args, **kwargs)
        return _sized(result, f"the result of {name or 'a call'}")


def _bounded_filter(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        _BUDGET.check()
        plain = [a for a in args if not isinstance(a, EvalContext | Context | jinja2.Environment)]
        _check_args(name, None, plain, kwargs)
        return _sized(fn(*args, **kwargs), f"the result of filter {name!r}")

    for attr in ("jinja_pass_arg",):  # keep how Jinja passes the context to the filter
        if hasattr(fn, attr):
            setattr(run, attr, getattr(fn, attr))
    return run


def _environment() -> _BoundedSandbox:
    env = _BoundedSandbox(
        undefined=jinja2.StrictUndefined, autoescape=False, loader=None, keep_trailing_newline=True
    )
    env.filters = {k: _bounded_filter(k, f) for k, f in env.filters.items()}
    env.globals.pop("lipsum", None)
    env.globals["namespace"] = _BoundedNamespace
    return env


_ENV = _environment()


def compile_template(source: str) -> jinja2.Template:
    """Compile a decode template in the bounded sandbox (raises jinja2.TemplateError)."""
    return _ENV.from_string(source)


def render_bounded(source: str, context: Mapping[str, Any]) -> str:
    """Render ``source`` with ``context`` within the time and size bounds.

    Raises:
        TemplateLimitError: a bound was hit.
        jinja2.TemplateError: any other template error (sandbox, undefined name ...).
    """
    template = compile_template(source)
    previous_deadline = _BUDGET.deadline
    _BUDGET.deadline = time.monotonic() + RENDER_TIMEOUT_S

    def watch_lines(frame: FrameType, event: str, arg: Any) -> Any:
        _BUDGET.check()
        return watch_lines

    def watch_calls(frame: FrameType, event: str, arg: Any) -> Any:
        # trace only the template's own code: library code runs at full speed
        return watch_lines if frame.f_code.co_filename == _TEMPLATE_FILE else None

    previous_trace = sys.gettrace()
    sys.settrace(watch_calls)
    try:
        parts: list[str] = []
        size = 0
        for chunk in template.generate(dict(context)):
            size += len(chunk)
            if size > RENDER_MAX_CHARS:
                raise _too_big("the rendered prompt", size)
            parts.append(chunk)
        return "".join(parts)
    finally:
        sys.settrace(previous_trace)
        _BUDGET.deadline = previous_deadline
