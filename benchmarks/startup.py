"""How long starting rubricjudge takes: ``import rubricjudge`` and ``rubricjudge --help``.

Each is run as a fresh process, interleaved with a bare ``python -c pass`` so that
the figures come from the same moments of a shared machine; the best and the median
wall time of ``--runs`` are printed (a user reads the median on a loaded machine), the
best CPU time, and the peak RSS (``ru_maxrss`` of the child, KiB on Linux).
Issue 23's target: ``--help`` within 0.3 s on a quiet machine (it took 2.05 s and
107 MB when the CLI's imports loaded the ``anthropic`` SDK and numpy).

    python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).with_name("rubricjudge")
CASES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "import rubricjudge": [sys.executable, "-c", "import rubricjudge"],
    "rubricjudge --help": [str(BIN), "--help"],
    "rubricjudge grade --help": [str(BIN), "grade", "--help"],
}


def once(argv: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of one run of ``argv``."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execv(argv[0], argv)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv} failed")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    best: dict[str, tuple[float, float, float]] = {}
    walls: dict[str, list[float]] = {}
    for _ in range(args.runs):
        for name, argv in CASES.items():
            got = once(argv)
            walls.setdefault(name, []).append(got[0])
            old = best.get(name)
            best[name] = got if old is None else (min(old[0], got[0]), min(old[1], got[1]), got[2])
    load = os.getloadavg()[0]
    print(f"{args.runs} runs each, load average {load:.1f} on {os.cpu_count()} cores")
    print(f"{'':28} {'best s':>8} {'median s':>9} {'CPU s':>8} {'RSS MiB':>8}")
    for name, (wall, cpu, rss) in best.items():
        median = statistics.median(walls[name])
        print(f"{name:28} {wall:8.3f} {median:9.3f} {cpu:8.3f} {rss:8.1f}")


if __name__ == "__main__":
    main()
