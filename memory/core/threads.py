"""Which thread does what: SQLite work runs on one store thread, and a request may wait on work
running elsewhere.

The daemon hands SQLite steps to its single store thread through a ``run_on_store`` function;
used as a library, the caller's own thread is the store thread (``run_here``).
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any, Callable, TypeVar

from agentmemd.memory.core.errors import Timeout

T = TypeVar("T")
RunOnStore = Callable[[Callable[[], Any]], Any]


def run_here(fn: Callable[[], T]) -> T:
    """``run_on_store`` for library use: the caller's thread is the store thread."""
    return fn()


def result_within(future: Future, seconds: float, message: str) -> Any:
    """The future's result, or ``Timeout(message)`` after ``seconds`` (the work goes on)."""
    try:
        return future.result(timeout=seconds)
    except TimeoutError:
        raise Timeout(message) from None
