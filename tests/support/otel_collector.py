"""A collector-shaped OTLP/HTTP server on 127.0.0.1: it takes ``POST /v1/traces``.

Each request body is an OTLP ``ExportTraceServiceRequest`` (protobuf); the server
decodes it with OpenTelemetry's own protobuf classes and keeps the spans, flattened
to ``{"name", "trace_id", "span_id", "parent", "status", "attributes"}``.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Collector"]


def _value(v: Any) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [_value(x) for x in v.array_value.values]
    return getattr(v, kind) if kind else None


class Collector:
    """``with Collector() as c: ... c.endpoint ... c.spans``."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.content_types: list[str] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
                    ExportTraceServiceRequest,
                    ExportTraceServiceResponse,
                )

                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                collector.paths.append(self.path)
                collector.content_types.append(self.headers.get("Content-Type", ""))
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                for rs in request.resource_spans:
                    for ss in rs.scope_spans:
                        for sp in ss.spans:
                            collector.spans.append(
                                {
                                    "name": sp.name,
                                    "trace_id": sp.trace_id.hex(),
                                    "span_id": sp.span_id.hex(),
                                    "parent": sp.parent_span_id.hex(),
                                    "status": sp.status.code,
                                    "scope": ss.scope.name,
                                    "attributes": {a.key: _value(a.value) for a in sp.attributes},
                                }
                            )
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Collector:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
