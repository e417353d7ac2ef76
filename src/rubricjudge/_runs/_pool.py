"""The worker pool of ``grade --pairwise`` and ``grade --group``: workers, order, progress.

Not the run driver (that is ``_drive``): these modes keep no run directory and do
not resume, so they need only a :class:`RunSession` and a pool. Each item (a
pair, a group) is handed to ``work`` with the grader whose judges the session
wrapped (so the progress bar counts judgments and errors and the summary has
their calls, tokens and latency). A fixed pool of workers takes items in input
order; results are emitted in input order through a bounded reorder buffer. An
item whose work raised something other than a usage error is emitted as
``failed(item, "Type: message")``: recorded, never dropped.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

from .._aio import gather_all
from .._errors import UsageError
from ._engine import RunSession
from ._ordered import OrderedWriter
from ._progress import ProgressArg, make_progress, ticking
from ._recording import CURRENT_ITEM
from ._summary import RunSummary

__all__ = ["run_pool"]

G = TypeVar("G")
T = TypeVar("T")
R = TypeVar("R")


async def run_pool(
    grader: G,
    items: Iterable[T],
    work: Callable[[G, T], Awaitable[R]],
    emit: Callable[[R], None],
    *,
    key: Callable[[T], str],
    failed: Callable[[T, str], R],
    is_failure: Callable[[R], bool],
    total: int | None,
    concurrency: int,
    progress: ProgressArg = None,
) -> RunSummary:
    """Run ``work(grader, item)`` over ``items``; ``emit`` each result in input order.

    Returns the judge numbers (calls, tokens, cost, latency) of the run.

    Raises:
        UsageError: a misconfiguration, which would fail every item alike.
    """
    concurrency = max(1, concurrency)
    writer: OrderedWriter[R] = OrderedWriter(emit, window=4 * concurrency)
    source = iter(items)
    with RunSession(grader, None, total=total) as session:
        bound = session.bound
        bar = make_progress(progress, total)
        bar.watch(session.counts)
        bar.status(session.waiting_for())

        async def worker() -> None:
            while True:
                await writer.room()
                item = next(source, None)
                if item is None:
                    return
                pos = writer.take()
                token = CURRENT_ITEM.set(key(item))
                try:
                    result = await work(bound, item)
                except UsageError:
                    raise
                except Exception as e:
                    result = failed(item, f"{type(e).__name__}: {e}")
                finally:
                    CURRENT_ITEM.reset(token)
                    for w in session.wrappers:
                        w.forget_item(key(item))
                if bar.done == 0:
                    bar.status("")
                writer.put(pos, result)
                bar.advance(failed=is_failure(result))

        async with ticking(bar):
            lanes = min(concurrency, total) if total else concurrency
            try:
                await gather_all([worker() for _ in range(max(1, lanes))])
            finally:
                bar.close()
        summary = session.summary()
        errors = session.counts()[1]
        if errors:  # judge calls that failed (each recorded in its item's result)
            summary = summary.model_copy(update={"errors": {"judge": errors}})
        return summary
