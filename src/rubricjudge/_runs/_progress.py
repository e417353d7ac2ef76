"""Progress of a run on stderr: a tqdm bar with live counts, from the first second.

tqdm draws the bar (elapsed time, rate, ETA when the total is known); a ticker
task redraws it twice a second, so a wait with nothing finished yet (the local
model loading, a slow first reply) still shows the clock moving and what it is
waiting for, along with the judgments and judge errors counted so far.

When stderr is not a terminal (a log file, CI, ``nohup``) no bar is drawn; a plain
line is written every ``PLAIN_EVERY`` seconds instead, so a run of many minutes does
not look hung.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from tqdm import tqdm

__all__ = ["Progress", "ProgressArg", "make_progress"]

ProgressArg = bool | None | Callable[[int, int], Any]
Counts = Callable[[], tuple[int, int]]
"""Returns (judgments answered, judge errors) so far."""

PLAIN_EVERY = 10.0
"""Seconds between two progress lines when stderr is not a terminal."""


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
        plain: TextIO | None = None,
        every: float = PLAIN_EVERY,
    ) -> None:
        self.total = total
        self._plain = plain
        self._every = every
        self._unit = unit
        self._start = time.monotonic()
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

    def line(self) -> str:
        """One plain line of the progress so far (for a log rather than a terminal)."""
        total = "" if self.total is None else f"/{self.total}"
        parts = [f"progress: {self.done}{total} {self._unit}s"]
        if self._counts is not None:
            answered, errors = self._counts()
            parts.append(f"judgments={answered} errors={errors}")
        if self.failed:
            parts.append(f"failed items={self.failed}")
        if self._status:
            parts.append(self._status)
        parts.append(f"{time.monotonic() - self._start:.0f}s elapsed")
        return ", ".join(parts)

    async def tick(self, every: float = 0.5) -> None:
        """Redraw every ``every`` seconds until cancelled (run it as a task).

        Without a bar, a plain line goes to the plain stream every ``PLAIN_EVERY`` s.
        """
        if self._bar is None:
            if self._plain is None:
                return
            while True:
                await asyncio.sleep(self._every)
                print(self.line(), file=self._plain, flush=True)
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

    ``None`` draws when stderr is a terminal, and otherwise writes a plain line every
    ``PLAIN_EVERY`` seconds; True/False force the bar (False: nothing at all); a
    callable gets ``(done, total)`` after each item (total -1 when unknown).
    """
    if callable(arg):
        return Progress(total, callback=arg, done=done)
    if arg is None and not sys.stderr.isatty():
        return Progress(total, done=done, plain=sys.stderr)
    draw = sys.stderr.isatty() if arg is None else bool(arg)
    return Progress(total, stream=sys.stderr if draw else None, done=done)
