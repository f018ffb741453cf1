"""Which thread does what: SQLite work runs on one store thread, a request may wait on work
running elsewhere, and background work yields to requests.

The daemon hands SQLite steps to its single store thread through a ``run_on_store`` function;
used as a library, the caller's own thread is the store thread (``run_here``).

A background thread (the episode and compaction workers, jobs, workspace syncs, re-embedding)
calls ``become_background`` once as it starts: it runs niced (on Linux niceness is per thread),
so the kernel gives a request's thread the core first, and its embeddings wait behind any a
request asks for (``in_background``). Between steps of pure-Python work it calls
``yield_to_requests``: it waits for the requests the socket is serving (``serving_request``).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import itertools
import os
import threading
import time
from concurrent.futures import Future
from typing import Any, Callable, Iterator, TypeVar

from agentmemd.memory.core.errors import Timeout

T = TypeVar("T")
RunOnStore = Callable[[Callable[[], Any]], Any]


def run_here(fn: Callable[[], T]) -> T:
    """``run_on_store`` for library use: the caller's thread is the store thread."""
    return fn()


def result_within(future: Future, seconds: float, message: str) -> Any:
    """The future's result, or ``Timeout(message)`` after ``seconds`` (the work goes on). A request
    waiting for it is not served meanwhile (``waiting_on_background``)."""
    try:
        with waiting_on_background():
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


# Niceness gives a request the cores, not the interpreter: a background thread running Python
# (an impression rebuilt from 200 messages, the Observer's sentence splitting) holds the GIL, and a
# pack takes it back hundreds of times (each SQLite step and many numpy calls let it go), waiting
# up to the switch interval each time. During an import's impression rebuilds packs took 150-250 ms
# against 15 ms idle. So background work, after each YIELD_EVERY of running, waits for the requests
# being served at that moment to be answered, at most YIELD_LONGEST: a request meets at most
# YIELD_EVERY of it, and a stream of requests slows it down (each wait is one request's time) but
# never stops it.
YIELD_EVERY = 0.005  # seconds of background work between waits
YIELD_LONGEST = 0.25  # seconds
_requests = itertools.count()
_serving: set[int] = set()  # the requests being served, by number
_yielding: set[int] = set()  # the threads waiting in yield_to_requests
_served = threading.Condition()


@contextlib.contextmanager
def serving_request() -> Iterator[None]:
    """Around a request's work (the socket's handler): background work yields while it runs."""
    number = _start_serving()
    _marked.serving = number
    try:
        yield
    finally:
        _stop_serving(_marked.serving)
        _marked.serving = None


@contextlib.contextmanager
def waiting_on_background() -> Iterator[None]:
    """Around a request's wait for background work (``jobs.run``, an Observer run it asked for):
    not served meanwhile, or what it waits for would yield to it."""
    number = getattr(_marked, "serving", None)
    if number is None:
        yield
        return
    _stop_serving(number)
    try:
        yield
    finally:
        _marked.serving = _start_serving()


def background_result(future: Future) -> Any:
    """The result of background work a request waits for (a job it asked for), the request not
    served meanwhile."""
    with waiting_on_background():
        return future.result()


def _start_serving() -> int:
    with _served:
        number = next(_requests)
        _serving.add(number)
        return number


def _stop_serving(number: int) -> None:
    with _served:
        _serving.discard(number)
        _served.notify_all()


def yield_to_requests(longest: float | None = None) -> None:
    """On a background thread, between steps of its work: once it has run YIELD_EVERY since it last
    waited, wait for the requests being served now to be answered, up to ``longest`` seconds
    (YIELD_LONGEST). Elsewhere (a request's thread, library use) it returns at once."""
    if not _serving or not in_background():
        return
    now = time.monotonic()
    if now - getattr(_marked, "yielded_at", float("-inf")) < YIELD_EVERY:
        return
    me = threading.get_ident()
    with _served:
        ahead = set(_serving)
        _yielding.add(me)
        try:
            _served.wait_for(lambda: not ahead & _serving, timeout=YIELD_LONGEST if longest is None else longest)
        finally:
            _yielding.discard(me)
    _marked.yielded_at = time.monotonic()


def yielding() -> frozenset[int]:
    """The threads (``threading.get_ident``) waiting for requests to be answered, now."""
    with _served:
        return frozenset(_yielding)
