"""OpenTelemetry spans for runs, items and judge calls: off by default, one test when off.

Nothing here imports OpenTelemetry until tracing is switched on, by
:func:`enable` (Python; ``rubricjudge.integrations.otel``), by the CLI's
``--otel`` or by the standard environment: ``OTEL_EXPORTER_OTLP_ENDPOINT``,
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` or ``OTEL_TRACES_EXPORTER`` (other than
``none``); ``OTEL_SDK_DISABLED=true`` keeps it off. The environment is read once,
at the first span. When tracing is off :func:`span` returns one shared no-op
context manager that yields None, so a caller builds its attributes only when it
gets a span::

    with span("rubricjudge.item") as s:
        ...
        if s is not None:
            s.set_attributes({...})
"""

from __future__ import annotations

import atexit
import os
import sys
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from ._errors import ConfigError
from ._version import __version__

__all__ = ["TRACER_NAME", "disable", "enable", "enable_from_env", "env_asks", "span"]

TRACER_NAME = "rubricjudge"
_NULL: AbstractContextManager[Any] = nullcontext()
_tracer: Any = None  # an opentelemetry Tracer while tracing is on
_checked = False  # the environment was read (it is read once)
_EXPORTERS = ("otlp", "console")


def span(name: str) -> AbstractContextManager[Any]:
    """A span named ``name`` around the block (the current span its parent); no-op when off."""
    if _tracer is None:
        if _checked:
            return _NULL
        enable_from_env()
        if _tracer is None:
            return _NULL
    return _tracer.start_as_current_span(name)  # type: ignore[no-any-return]


def enable(tracer_provider: Any = None) -> None:
    """Trace from now on to ``tracer_provider`` (None: OpenTelemetry's global provider).

    Raises:
        ConfigError: OpenTelemetry is not installed.
    """
    global _tracer, _checked
    trace = _import_trace()

    if tracer_provider is None:
        _tracer = trace.get_tracer(TRACER_NAME, __version__)
    else:
        _tracer = tracer_provider.get_tracer(TRACER_NAME, __version__)
    _checked = True


def disable() -> None:
    """Stop tracing (the environment is not read again)."""
    global _tracer, _checked
    _tracer = None
    _checked = True


def env_asks() -> bool:
    """Whether the standard ``OTEL_*`` variables ask for traces."""
    env = os.environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        return True
    exporters = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    return bool(exporters) and exporters != "none"


def enable_from_env(*, force: bool = False) -> None:
    """Switch tracing on when the environment asks for it (or ``force``: the ``--otel`` flag).

    The spans go to the global provider when one is configured (by the application,
    or ``opentelemetry-instrument``); otherwise to a provider of our own that exports
    in batches to ``OTEL_TRACES_EXPORTER`` (``otlp``, the default: OTLP over
    HTTP/protobuf to ``OTEL_EXPORTER_OTLP_ENDPOINT``; or ``console``), flushed at exit.

    Raises:
        ConfigError: ``force`` without OpenTelemetry installed, or an exporter this
            cannot build.
    """
    global _checked
    _checked = True
    if _tracer is not None or not (force or env_asks()):
        return
    if not force and not _installed():
        print(
            "note: OTEL_* variables ask for traces but OpenTelemetry is not installed "
            "(pip install 'rubricjudge[otel]'); rubricjudge sends none",
            file=sys.stderr,
        )
        return
    trace = _import_trace()
    current = trace.get_tracer_provider()
    if type(current).__name__ not in ("ProxyTracerProvider", "NoOpTracerProvider"):
        enable(current)
        return
    enable(_own_provider())


def _own_provider() -> Any:
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    except ImportError:
        raise ConfigError(
            "tracing needs the OpenTelemetry SDK: pip install 'rubricjudge[otel]'"
        ) from None
    names = [
        n.strip().lower()
        for n in os.environ.get("OTEL_TRACES_EXPORTER", "otlp").split(",")
        if n.strip() and n.strip().lower() != "none"
    ] or ["otlp"]
    provider = TracerProvider()  # reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
    for name in names:
        if name == "console":
            provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter()))
        elif name == "otlp":
            protocol = os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
            if protocol.strip().lower() != "http/protobuf":
                raise ConfigError(
                    f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r}: rubricjudge exports OTLP over "
                    "http/protobuf; set it to http/protobuf (collectors listen on port 4318)"
                )
            try:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
                    OTLPSpanExporter,
                )
            except ImportError:
                raise ConfigError(
                    "the OTLP exporter is not installed: pip install 'rubricjudge[otel]'"
                ) from None
            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        else:
            raise ConfigError(
                f"OTEL_TRACES_EXPORTER={name!r} is not one rubricjudge builds; use one of "
                f"{', '.join(_EXPORTERS)}, or configure a global tracer provider yourself"
            )
    atexit.register(provider.shutdown)  # flushes the batches still queued
    return provider


def _installed() -> bool:
    from importlib.util import find_spec

    return find_spec("opentelemetry") is not None and find_spec("opentelemetry.sdk") is not None


def _import_trace() -> Any:
    try:
        from opentelemetry import trace
    except ImportError:
        raise ConfigError("tracing needs OpenTelemetry: pip install 'rubricjudge[otel]'") from None
    return trace
