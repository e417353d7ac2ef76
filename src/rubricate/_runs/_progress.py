"""A one-line progress bar on stderr, drawn only when stderr is a terminal."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

__all__ = ["Progress", "ProgressArg", "make_progress"]

ProgressArg = bool | None | Callable[[int, int], Any]


class Progress:
    """Counts finished items and redraws at most ten times a second."""

    def __init__(
        self,
        total: int,
        *,
        stream: TextIO | None = None,
        callback: Callable[[int, int], Any] | None = None,
        done: int = 0,
    ) -> None:
        self.total = total
        self.done = done
        self.failed = 0
        self._stream = stream
        self._callback = callback
        self._start = time.monotonic()
        self._first = done
        self._last_draw = 0.0

    def advance(self, *, failed: bool = False) -> None:
        """Count one finished item."""
        self.done += 1
        self.failed += int(failed)
        if self._callback is not None:
            self._callback(self.done, self.total)
        if self._stream is not None:
            now = time.monotonic()
            if now - self._last_draw >= 0.1 or self.done == self.total:
                self._last_draw = now
                self._draw(now)

    def _draw(self, now: float) -> None:
        assert self._stream is not None
        width = 30
        frac = self.done / self.total if self.total else 1.0
        bar = "#" * int(frac * width)
        rate = (self.done - self._first) / max(now - self._start, 1e-9)
        fail = f", {self.failed} failed" if self.failed else ""
        self._stream.write(
            f"\r[{bar:<{width}}] {self.done}/{self.total} items  {rate:.1f}/s{fail}   "
        )
        self._stream.flush()

    def close(self) -> None:
        """End the line of the bar."""
        if self._stream is not None:
            self._draw(time.monotonic())
            self._stream.write("\n")
            self._stream.flush()


def make_progress(arg: ProgressArg, total: int, done: int) -> Progress:
    """Build a progress counter.

    ``None`` draws when stderr is a TTY; a callable gets ``(done, total)`` per item.
    """
    if callable(arg):
        return Progress(total, callback=arg, done=done)
    draw = sys.stderr.isatty() if arg is None else bool(arg)
    return Progress(total, stream=sys.stderr if draw else None, done=done)
