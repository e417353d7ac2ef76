"""OpenTelemetry traces of runs, items and judge calls (``pip install 'rubricjudge[otel]'``).

Tracing is off by default and costs one test per span when off. It is switched on
by the standard environment (``OTEL_EXPORTER_OTLP_ENDPOINT``,
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` or ``OTEL_TRACES_EXPORTER``), by the CLI's
``rubricjudge --otel ...``, or from Python::

    from opentelemetry.sdk.trace import TracerProvider
    from rubricjudge.integrations import otel

    otel.enable(TracerProvider(...))   # or otel.enable(): OpenTelemetry's global provider

Spans: ``rubricjudge.run`` (one per ``evaluate`` / ``grade`` run), ``rubricjudge.item``
(one per graded item) and ``rubricjudge.judge`` (one per judge call) with the
GenAI semantic-convention attributes (``gen_ai.system``, ``gen_ai.request.model``,
``gen_ai.usage.input_tokens``, ``gen_ai.usage.output_tokens``) and ours
(``rubricjudge.criterion``, ``rubricjudge.verdict``, ``rubricjudge.probability``,
``rubricjudge.cache_hit``, ``rubricjudge.error``). A failed judge call is a span
with status ERROR and ``error.type``, never a verdict.
"""

from __future__ import annotations

from .._trace import TRACER_NAME, disable, enable

__all__ = ["TRACER_NAME", "disable", "enable"]
