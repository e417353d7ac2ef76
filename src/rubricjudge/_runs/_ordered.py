"""Results written in input order while items finish in any order, with bounded memory.

Workers take items in input order but finish out of it. An :class:`OrderedWriter`
holds each result until every earlier one is written; :meth:`room` holds the
workers back while ``window`` items are taken but unwritten, so one slow item
cannot make the buffer grow with the input.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["OrderedWriter"]

T = TypeVar("T")


class OrderedWriter(Generic[T]):
    """Calls ``write`` with results in position order (positions 0, 1, 2, ...)."""

    def __init__(self, write: Callable[[T], None], *, window: int) -> None:
        self._write = write
        self._window = max(1, window)
        self._held: dict[int, T] = {}
        self._moved = asyncio.Event()
        self.taken = 0
        self.written = 0

    def take(self) -> int:
        """Reserve the next position (an item is taken from the input)."""
        pos = self.taken
        self.taken += 1
        return pos

    def put(self, position: int, result: T) -> None:
        """Hand in the result at ``position``; write whatever is now in order."""
        self._held[position] = result
        moved = False
        while self.written in self._held:
            self._write(self._held.pop(self.written))
            self.written += 1
            moved = True
        if moved:
            self._moved.set()

    async def room(self) -> None:
        """Wait until fewer than ``window`` taken items are unwritten."""
        while self.taken - self.written >= self._window:
            self._moved.clear()
            await self._moved.wait()

    @property
    def pending(self) -> int:
        """Results held back, waiting for an earlier one."""
        return len(self._held)
