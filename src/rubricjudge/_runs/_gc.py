"""The cyclic garbage collector during a run: collected less often, as servers do.

Every judgment allocates a few hundred container objects (request, reply, coroutines,
futures, aiohttp's request and response) that die young; with CPython's default
threshold (700 allocations) a 10,000-call run makes about a thousand collections of the
youngest generation and, through them, the older ones, which walk every live object
(a run keeps its reports, rows and summary alive). :func:`fewer_collections` raises the
youngest generation's threshold while a run goes and puts the caller's back after: the
same collections, an order of magnitude fewer times. Nothing is left uncollected (the
collector still runs, and at the end as before); a threshold of 0 (the collector turned
off) or one already higher is left alone.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["RUN_THRESHOLD", "fewer_collections"]

RUN_THRESHOLD = 10_000
"""The youngest generation's threshold during a run (CPython's default is 700)."""

_LOCK = threading.Lock()
_depth = 0
_saved: tuple[int, ...] | None = None


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's threshold for the duration (nested and threaded runs share it)."""
    global _depth, _saved
    with _LOCK:
        if _depth == 0:
            old = gc.get_threshold()
            if 0 < old[0] < RUN_THRESHOLD:
                gc.set_threshold(RUN_THRESHOLD, *old[1:])
                _saved = old
        _depth += 1
    try:
        yield
    finally:
        with _LOCK:
            _depth -= 1
            # put back only what we set: a caller who changed it meanwhile keeps theirs
            if _depth == 0 and _saved is not None:
                if gc.get_threshold()[0] == RUN_THRESHOLD:
                    gc.set_threshold(*_saved)
                _saved = None
