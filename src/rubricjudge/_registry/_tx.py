"""One open transaction, and what runs transactions: the contract migrations need."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

__all__ = ["Runner", "Tx"]

T = TypeVar("T")


class Tx(ABC):
    """One open transaction."""

    #: appended to a SELECT that must lock the rows it reads ("" where the
    #: backend locks the whole database for a write transaction instead)
    for_update: str = ""

    @abstractmethod
    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement (``?`` placeholders); the rows it returns, if any."""

    @property
    @abstractmethod
    def rowcount(self) -> int:
        """Rows changed by the last statement."""


class Runner(Protocol):
    """What a migration needs of a database: its dialect and retried transactions."""

    dialect: str

    def run(self, fn: Callable[[Tx], T], *, write: bool = True, attempts: int = 8) -> T:
        """Run ``fn`` in a transaction, retrying the whole of it on retryable errors."""
        ...
