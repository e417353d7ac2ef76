"""Progress of a run on stderr: a tqdm bar with live counts, from the first second.

tqdm draws the bar (elapsed time, rate, ETA when the total is known); a ticker
task redraws it twice a second, so a wait with nothing finished yet (the local
model loading, a slow first reply) still shows the clock moving and what it is
waiting for, along with the judgments and judge errors counted so far.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from typing import Any, TextIO

from tqdm import tqdm

__all__ = ["Progress", "ProgressArg", "make_progress"]

ProgressArg = bool | None | Callable[[int, int], Any]
Counts = Callable[[], tuple[int, int]]
"""Returns (judgments answered, judge errors) so far."""


class Progress:
    """Counts finished items; draws a bar on ``stream`` and/or calls ``callback``."""

    def __init__(
        self,
        total: int | None,
        *,
        stream: TextIO | None = None,
        callback: Callable[[int, int], Any] | None = None,
        done: int = 0,
        unit: str = "item",
    ) -> None:
        self.total = total
        self.done = done
        self.failed = 0
        self._callback = callback
        self._counts: Counts | None = None
        self._status = ""
        self._bar: tqdm[Any] | None = None
        if stream is not None:
            self._bar = tqdm(
                total=total,
                initial=done,
                unit=unit,
                file=stream,
                dynamic_ncols=True,
                mininterval=0.25,
                leave=True,
            )

    def watch(self, counts: Counts) -> None:
        """Show the live judgment and error counts ``counts()`` returns."""
        self._counts = counts

    def status(self, text: str) -> None:
        """Say what the run is waiting for (empty: nothing special)."""
        self._status = text
        self._redraw()

    def advance(self, *, failed: bool = False, count: int = 1) -> None:
        """Count ``count`` finished items (one by default)."""
        self.done += count
        self.failed += int(failed) * count
        if self._callback is not None:
            self._callback(self.done, self.total if self.total is not None else -1)
        if self._bar is not None:
            self._set_postfix()
            self._bar.update(count)

    def grow(self, count: int) -> None:
        """Add ``count`` to the total: work that became known while counting (ETA follows)."""
        self.total = (self.total or 0) + count
        if self._bar is not None:
            self._bar.total = self.total
            self._bar.refresh()

    def _set_postfix(self) -> None:
        assert self._bar is not None
        parts = {}
        if self._counts is not None:
            answered, errors = self._counts()
            parts["judgments"] = str(answered)
            parts["errors"] = str(errors)
        if self.failed:
            parts["failed items"] = str(self.failed)
        self._bar.set_postfix(parts, refresh=False)
        self._bar.set_description_str(self._status, refresh=False)

    def _redraw(self) -> None:
        if self._bar is not None:
            self._set_postfix()
            self._bar.refresh()

    async def tick(self, every: float = 0.5) -> None:
        """Redraw every ``every`` seconds until cancelled (run it as a task)."""
        if self._bar is None:
            return
        while True:
            self._redraw()
            await asyncio.sleep(every)

    def close(self) -> None:
        """Draw the final state and end the bar's line."""
        if self._bar is not None:
            self._status = ""
            self._redraw()
            self._bar.close()


@contextlib.asynccontextmanager
async def ticking(bar: Progress) -> Any:
    """Keep ``bar`` redrawing while the body runs."""
    task = asyncio.create_task(bar.tick())
    try:
        yield bar
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def make_progress(arg: ProgressArg, total: int | None, done: int = 0) -> Progress:
    """Build a progress counter.

    ``None`` draws when stderr is a terminal; True/False force it; a callable gets
    ``(done, total)`` after each item (total -1 when unknown).
    """
    if callable(arg):
        return Progress(total, callback=arg, done=done)
    draw = sys.stderr.isatty() if arg is None else bool(arg)
    return Progress(total, stream=sys.stderr if draw else None, done=done)
