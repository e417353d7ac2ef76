"""Ray throughput: judgments per second with 1 and 2 Ray actors beside one process.

Grades N items x 5 criteria with the per-criterion grader against
``tests/support/chat_server.py`` answering each request after ``--delay`` (50 ms), run in
its own process, and prints side by side, in one run:

- ``evaluate`` in this process (``--concurrency`` items at once), with a run directory;
- ``evaluate`` on a Ray executor with 1 and 2 actors (``--concurrency`` items per
  actor), the driver committing every judgment to its run directory;
- ``grade_dataset`` (Ray Data ``map_batches``) with 1 and 2 actors.

Each line gives the wall time, judgments per second and the ratio to the
single-process run. Ray's own start (``ray.init``) is not counted. Starting the
executor's actors is shown apart; ``grade_dataset`` starts its pipeline and actors
inside the timed run, and the time of the same pipeline over one row per actor is
shown beside it. With ``--local`` the judge is the
embedded local model instead (``--local-items`` items x 2 criteria; each actor
loads its own copy).

    python benchmarks/ray_throughput.py                 # 400 items, 50 ms, concurrency 16
    python benchmarks/ray_throughput.py --local         # also the local judge
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CRITERIA = 5


def serve(delay: float) -> None:
    """Run the chat server (in its own process, so it shares no GIL with the driver)."""
    sys.path.insert(0, str(ROOT))
    from rubricjudge._judges._fake import fake_reply_for_schema
    from tests.support.chat_server import ChatServer, Reply, schema_of

    server = ChatServer().start()
    server.handler = lambda body: Reply.json(
        fake_reply_for_schema(schema_of(body) or {}), delay=delay
    )
    print(server.base_url, flush=True)
    sys.stdin.read()
    server.close()


def _dataset(n: int, criteria: int) -> Any:
    from rubricjudge import Criterion, DataItem, Rubric, RubricDataset

    rubric = Rubric(
        [Criterion(name=f"c{j}", requirement=f"Requirement {j} holds.") for j in range(criteria)]
    )
    items = [DataItem(submission=f"Answer number {i}.", id=f"it{i}") for i in range(n)]
    return RubricDataset(prompt="Answer.", rubric=rubric, items=items)


def _line(name: str, wall: float, judgments: int, base: float | None, note: str = "") -> str:
    rate = judgments / wall
    ratio = f"{rate / base:5.2f}x" if base else "1.00x"
    return f"{name:<34} {wall:7.2f} s {rate:8.1f} judgments/s  {ratio}  {note}"


def run_all(spec: Any, items: int, criteria: int, concurrency: int, title: str) -> list[str]:
    import ray

    from rubricjudge._runs._evaluate import evaluate_sync
    from rubricjudge.integrations.ray import RayExecutor, grade_dataset

    ds = _dataset(items, criteria)
    judgments = items * criteria
    lines = [f"-- {title}: {items} items x {criteria} criteria = {judgments} judgments"]
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        result = evaluate_sync(ds, spec.build(), run_dir=f"{tmp}/local", concurrency=concurrency)
        base_wall = time.perf_counter() - t
        assert result.summary.items_graded == items, result.summary
        base = judgments / base_wall
        lines.append(_line("evaluate, one process", base_wall, judgments, None))
        for actors in (1, 2):
            t = time.perf_counter()
            executor = RayExecutor(spec, actors=actors)
            start = time.perf_counter() - t
            try:
                t = time.perf_counter()
                result = evaluate_sync(
                    ds,
                    spec.build(),
                    run_dir=f"{tmp}/ray{actors}",
                    concurrency=concurrency,
                    executor=executor,
                )
                wall = time.perf_counter() - t
            finally:
                executor.close()
            assert result.summary.items_graded == items, result.summary
            lines.append(
                _line(
                    f"evaluate --executor ray, {actors} actor{'s' if actors > 1 else ''}",
                    wall,
                    judgments,
                    base,
                    f"(+{start:.1f} s starting actors)",
                )
            )
        rows = [{"submission": it.submission, "id": it.id} for it in ds.items]
        for actors in (1, 2):
            t = time.perf_counter()  # the same pipeline over one row per actor: its start cost
            grade_dataset(
                ray.data.from_items(rows[:actors]), ds.rubric, spec, actors=actors
            ).take_all()
            start = time.perf_counter() - t
            t = time.perf_counter()
            out = grade_dataset(
                ray.data.from_items(rows),
                ds.rubric,
                spec,
                id_column="id",
                actors=actors,
                concurrency=concurrency,
                batch_size=max(1, min(64, items // (2 * actors))),
            ).take_all()
            wall = time.perf_counter() - t
            assert len(out) == items and all(r["error"] is None for r in out)
            name = f"grade_dataset, {actors} actor{'s' if actors > 1 else ''}"
            note = f"(start included; {actors} row{'s' if actors > 1 else ''} alone: {start:.1f} s)"
            lines.append(_line(name, wall, judgments, base, note))
    return lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--items", type=int, default=400)
    p.add_argument("--delay", type=float, default=0.05, help="server reply delay (s)")
    p.add_argument("--concurrency", type=int, default=16, help="items at once (per actor)")
    p.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    p.add_argument("--local", action="store_true", help="also the embedded local judge")
    p.add_argument("--local-items", type=int, default=8)
    p.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.serve is not None:
        serve(args.serve)
        return

    warnings.simplefilter("ignore", DeprecationWarning)  # Ray Data's own settings
    os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", tempfile.mkdtemp(prefix="ray-bench-cache-"))
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(args.delay)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        import ray

        from rubricjudge import GraderSpec

        ray.init(num_cpus=args.cpus, include_dashboard=False, logging_level="ERROR")
        ray.data.DataContext.get_current().enable_progress_bars = False
        print(
            f"Ray {ray.__version__}, {args.cpus} CPUs; {os.cpu_count()} cores on this machine; "
            f"server delay {args.delay * 1000:.0f} ms; concurrency {args.concurrency} per process "
            "or actor (a process ceiling of "
            f"{args.concurrency / args.delay:.0f} judgments/s)"
        )
        options = {"judge_options": {"base_url": url, "cache": False}}
        options["concurrency"] = args.concurrency
        spec = GraderSpec(judge="openai/test", options=options)
        for line in run_all(spec, args.items, CRITERIA, args.concurrency, "50 ms mock endpoint"):
            print(line, flush=True)
        if args.local:
            local = GraderSpec(judge="local", options={"judge_options": {"cache": False}})
            for line in run_all(local, args.local_items, 2, 4, "local judge"):
                print(line, flush=True)
        print(json.dumps({"ray": ray.__version__, "items": args.items}))
    finally:
        if server.stdin is not None:
            server.stdin.close()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
