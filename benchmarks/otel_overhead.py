"""What tracing costs: off (the default) per span and per run, and on, to an in-memory exporter.

Off, every span site is one call returning a shared no-op context manager; this
times that call beside a bare ``with nullcontext():`` (what a site without tracing
would still cost if it had any block at all), then a whole ``evaluate`` with the
``fake`` judge (no network: the client's CPU is all there is), off and on, best of
R rounds each, alternating. The share of the run that the off-path spans take is
(spans per run x ns per off span) / run time.

Run: python benchmarks/otel_overhead.py [--items N] [--rounds R]
"""

from __future__ import annotations

import argparse
import time
from contextlib import nullcontext
from typing import Any


def per_span_ns(n: int = 1_000_000) -> tuple[float, float]:
    from rubricjudge import _trace

    _trace.disable()
    null = nullcontext()
    t = time.perf_counter()
    for _ in range(n):
        with null:
            pass
    bare = (time.perf_counter() - t) / n * 1e9
    span = _trace.span
    t = time.perf_counter()
    for _ in range(n):
        with span("rubricjudge.judge") as s:
            if s is not None:
                pass
    off = (time.perf_counter() - t) / n * 1e9
    return bare, off


def run_once(items: int, provider: Any) -> tuple[float, int]:
    from rubricjudge import _trace
    from rubricjudge._datasets._bundled import load_example_dataset
    from rubricjudge._graders._criterion import CriterionGrader
    from rubricjudge._runs._evaluate import evaluate_sync

    if provider is None:
        _trace.disable()
    else:
        _trace.enable(provider)
    ds = load_example_dataset("llm_rubric_microsoft")
    grader = CriterionGrader(judge="fake")
    t = time.process_time()
    result = evaluate_sync(ds, grader, max_items=items)
    return time.process_time() - t, result.summary.judge_calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--items", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()

    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    bare, off = per_span_ns()
    print(f"per span site, tracing off: {off:.0f} ns (a bare `with nullcontext()`: {bare:.0f} ns)")
    run_once(5, None)  # warm the imports
    offs, ons = [], []
    calls = 0
    for _ in range(args.rounds):
        cpu, calls = run_once(args.items, None)
        offs.append(cpu)
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        cpu, _ = run_once(args.items, provider)
        ons.append(cpu)
        spans = len(exporter.get_finished_spans())
    best_off, best_on = min(offs), min(ons)
    share = spans * off * 1e-9 / best_off
    print(
        f"evaluate, fake judge, {args.items} items, {calls} judge calls, {spans} spans when on; "
        f"client CPU best of {args.rounds}:"
    )
    print(
        f"  off: {best_off:.3f} s   on (in-memory exporter): {best_on:.3f} s "
        f"(+{(best_on / best_off - 1) * 100:.0f}%, "
        f"{(best_on - best_off) / spans * 1e6:.0f} us/span)"
    )
    print(f"  the off-path span sites: {spans} x {off:.0f} ns = {share * 100:.3f}% of the run")


if __name__ == "__main__":
    main()
