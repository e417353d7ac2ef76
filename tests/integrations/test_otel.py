"""OpenTelemetry traces (issue 36): spans per run, item and judge call, off by default.

The spans are read back two ways: from the SDK's in-memory exporter (Python API,
``integrations.otel.enable``) and from a collector-shaped OTLP/HTTP server that a
real ``rubricjudge evaluate`` process exports to, switched on by the standard
``OTEL_EXPORTER_OTLP_ENDPOINT``. The judge is ``openai/m`` against the scripted chat
server (a rollout saying FAIL gets a 500 for every criterion).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import _trace
from tests.support.chat_server import ChatServer
from tests.support.otel_collector import Collector
from tests.support.reward_helpers import fruit_reply, write_rubric

if not os.environ.get("RUBRICJUDGE_REQUIRE_INTEGRATIONS"):
    pytest.importorskip("opentelemetry.sdk", reason="needs rubricjudge[otel]")
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="needs rubricjudge[otel]")

from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from opentelemetry.trace import StatusCode  # noqa: E402

from rubricjudge import CriterionGrader, Rubric, RubricDataset  # noqa: E402
from rubricjudge.integrations import otel  # noqa: E402
from rubricjudge.runs import evaluate_sync  # noqa: E402

OTEL_VARS = (
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_TRACES_EXPORTER",
    "OTEL_SDK_DISABLED",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
)


@pytest.fixture(autouse=True)
def tracing_reset(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in OTEL_VARS:
        monkeypatch.delenv(name, raising=False)
    _trace._tracer, _trace._checked = None, False
    yield
    _trace._tracer, _trace._checked = None, False


def _dataset(tmp_path: Path) -> RubricDataset:
    ds = RubricDataset(prompt="Name some fruit.", rubric=Rubric.from_file(write_rubric(tmp_path)))
    ds.add_item("apples and bananas", id="good")
    ds.add_item("apples FAIL", id="outage")
    return ds


def _grader(server: ChatServer) -> CriterionGrader:
    server.handler = fruit_reply
    options = {"base_url": server.base_url, "max_retries": 0}
    return CriterionGrader(judge="openai/m", judge_options=options)


def test_spans_of_a_run_its_items_and_judge_calls(
    tmp_path: Path, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    otel.enable(provider)
    result = evaluate_sync(_dataset(tmp_path), _grader(chat_server))
    assert [o.status for o in result.outcomes] == ["done", "partial"]

    spans = exporter.get_finished_spans()
    by_name: dict[str, list[Any]] = {}
    for s in spans:
        by_name.setdefault(s.name, []).append(s)
    (run,) = by_name["rubricjudge.run"]
    items = by_name["rubricjudge.item"]
    calls = by_name["rubricjudge.judge"]
    assert len(items) == 2 and len(calls) == 4
    assert run.parent is None and run.attributes["rubricjudge.items_graded"] == 2
    assert all(i.parent.span_id == run.context.span_id for i in items)
    item_ids = {i.context.span_id: i.attributes["rubricjudge.item_id"] for i in items}
    assert sorted(item_ids[c.parent.span_id] for c in calls) == ["good"] * 2 + ["outage"] * 2

    good = [c for c in calls if item_ids[c.parent.span_id] == "good"]
    for c in good:
        a = c.attributes
        assert a["gen_ai.system"] == "openai" and a["gen_ai.request.model"] == "m"
        assert a["gen_ai.usage.input_tokens"] == 40 and a["gen_ai.usage.output_tokens"] == 6
        assert a["rubricjudge.verdict"] == "MET" and a["rubricjudge.cache_hit"] is False
        assert c.status.status_code != StatusCode.ERROR
    assert sorted(c.attributes["rubricjudge.criterion"] for c in good) == ["apples", "bananas"]

    # a judge failure is an error span, never a verdict
    failed = [c for c in calls if item_ids[c.parent.span_id] == "outage"]
    for c in failed:
        assert c.status.status_code == StatusCode.ERROR
        assert "rubricjudge.verdict" not in c.attributes
        assert c.attributes["error.type"] and c.attributes["rubricjudge.error"]
    outage = next(i for i in items if i.attributes["rubricjudge.item_id"] == "outage")
    assert outage.status.status_code == StatusCode.ERROR
    assert "rubricjudge.score" not in outage.attributes
    assert outage.attributes["rubricjudge.judge_errors"] == 2
    good_item = next(i for i in items if i.attributes["rubricjudge.item_id"] == "good")
    assert good_item.attributes["rubricjudge.score"] == 1.0


def test_off_by_default_no_span_and_no_import(tmp_path: Path) -> None:
    # in this process: no environment, no enable() -> the shared no-op context
    assert _trace.span("x") is _trace._NULL and _trace._tracer is None
    # a whole CLI run in a fresh interpreter never imports OpenTelemetry
    code = (
        "import sys; from rubricjudge._cli.main import main; "
        "rc = main(['evaluate', 'example:llm_rubric_microsoft', '--judge', 'fake', "
        "'--max-items', '2', '--json']); "
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry'))); sys.exit(rc)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env["RUBRICJUDGE_CACHE_DIR"] = str(tmp_path / "cache")
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def _cli(tmp_path: Path, env_extra: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(RUBRICJUDGE_CACHE_DIR=str(tmp_path / "cache"), **env_extra)
    argv = ["evaluate", "example:llm_rubric_microsoft", "--judge", "fake", "--max-items", "2"]
    return subprocess.run(
        [sys.executable, "-m", "rubricjudge._cli.main", *args, *argv, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_otlp_http_export_to_a_collector_from_the_environment(tmp_path: Path) -> None:
    with Collector() as collector:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint, "OTEL_SERVICE_NAME": "ev"}
        proc = _cli(tmp_path, env)
        assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert set(collector.paths) == {"/v1/traces"}
    assert set(collector.content_types) == {"application/x-protobuf"}
    names = [s["name"] for s in collector.spans]
    calls = summary["judge_calls"]
    assert names.count("rubricjudge.run") == 1 and names.count("rubricjudge.item") == 2
    assert names.count("rubricjudge.judge") == calls > 0
    assert {s["scope"] for s in collector.spans} == {"rubricjudge"}
    assert len({s["trace_id"] for s in collector.spans}) == 1  # one trace per run
    judge = next(s for s in collector.spans if s["name"] == "rubricjudge.judge")
    assert judge["attributes"]["gen_ai.system"] == "fake"
    assert judge["attributes"]["rubricjudge.criterion"]


def test_the_otel_flag_refuses_an_exporter_it_cannot_build(tmp_path: Path) -> None:
    proc = _cli(tmp_path, {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "--otel")
    assert proc.returncode == 1
    assert "OTEL_EXPORTER_OTLP_PROTOCOL='grpc'" in proc.stderr and "Traceback" not in proc.stderr


def test_otel_disabled_wins_over_an_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    assert _trace.span("x") is _trace._NULL
