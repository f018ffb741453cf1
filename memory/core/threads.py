"""Which thread does what: SQLite work runs on one store thread, a request may wait on work
running elsewhere, and background work yields to requests.

The daemon hands SQLite steps to its single store thread through a ``run_on_store`` function;
used as a library, the caller's own thread is the store thread (``run_here``).

A background thread (the episode and compaction workers, jobs, workspace syncs, re-embedding)
calls ``become_background`` once as it starts: it runs niced (on Linux niceness is per thread),
so the kernel gives a request's thread the core first, and its embeddings wait behind any a
request asks for (``in_background``).
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading
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


# What a background thread adds to its nice value: the kernel gives the cores to request threads
# first (Linux sets it per thread). Consolidation's distance matrix and clustering release the GIL,
# so on two cores they otherwise took a core from the packs (bench load: pack p95 2.6x while it ran).
BACKGROUND_NICE = 10
_marked = threading.local()


def become_background() -> None:
    """Mark the calling thread as background work: niced by BACKGROUND_NICE (where allowed) and
    ``in_background`` from now on. Once per thread (a thread cannot be un-niced without privilege)."""
    if getattr(_marked, "background", False):
        return
    _marked.background = True
    try:
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, min(19, os.getpriority(os.PRIO_PROCESS, thread) + BACKGROUND_NICE))
    except (OSError, AttributeError):  # not Linux, or not allowed: it runs at the daemon's priority
        pass


def in_background() -> bool:
    """Whether the calling thread does background work (``become_background``)."""
    return getattr(_marked, "background", False)


@functools.cache
def _malloc_trim():
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim  # glibc; musl and macOS have none
    except (OSError, AttributeError):
        return None


def return_freed_memory() -> None:
    """Hand back to the system the memory background work freed but malloc kept. The model's
    forward passes, on several threads at once, leave their freed activations in glibc's
    per-thread arenas: after a 3,400-message import the daemon held 1.7 GB against 0.6 GB for
    the same store freshly loaded. Trimming takes ~40 ms, on the background thread (a fixed
    M_MMAP_THRESHOLD kept them from the arenas too, but halved bulk embedding)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
