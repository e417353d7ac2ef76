"""Async helpers every layer may use.

Running a coroutine from sync code; gathering tasks so that one failure cancels the rest.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

__all__ = ["gather_all", "run_sync"]

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from sync code, even inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def gather_all(aws: Sequence[Awaitable[T]]) -> list[T]:
    """Await all, in order; on the first exception cancel the rest and re-raise it."""
    if len(aws) == 1:  # nothing to run beside it: no task (one per judgment, in graders)
        return [await aws[0]]
    tasks = [asyncio.ensure_future(a) for a in aws]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
