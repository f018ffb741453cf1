"""The compaction worker: runs the Observer and Reflector in the background.

One thread, one queue of sessions. ``conversation.append`` only asks for a session to be
looked at; the worker then calls the provider off the store thread and hands every
SQLite step to ``run_on_store`` (the daemon's single store thread, or a direct call when
used as a library). Runs of one session never overlap, since there is one worker.
"""

from __future__ import annotations

import logging
import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable

from .conversation import Conversations
from .llm.cache import ResponseCache
from .llm.tasks import LanguageModel

log = logging.getLogger("agentmemd")


class CompactionWorker:
    def __init__(self, conversations: Conversations, provider: LanguageModel, cache: ResponseCache | None,
                 run_on_store: Callable[[Callable[[], Any]], Any], *, target_ratio: float):
        self.conversations = conversations
        self.provider = provider
        self.cache = cache
        self.run_on_store = run_on_store
        self.target_ratio = target_ratio
        self._queue: queue.Queue[tuple[str, tuple[bool, bool], Future] | None] = queue.Queue()
        self._queued: set[str] = set()
        self._lock = threading.Lock()
        self._busy = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="agentmemd-compaction", daemon=True)
        self._thread.start()

    # ---- asking -----------------------------------------------------------------------

    def request(self, session: str) -> None:
        """Look at this session soon (a threshold may have been crossed); never waits."""
        with self._lock:
            if session in self._queued:
                return
            self._queued.add(session)
        self._queue.put((session, (False, False), Future()))

    def run_now(self, session: str, *, force: bool, reflect: bool = False) -> Future:
        """Queue a run of this session; the Future gives its report."""
        future: Future = Future()
        self._queue.put((session, (force, reflect), future))
        return future

    def idle(self) -> bool:
        return self._queue.empty() and not self._busy.is_set()

    def stop(self) -> None:
        """Finish the run in progress (its writes are one transaction), skip what is queued."""
        self._stopping.set()
        self._queue.put(None)
        self._thread.join(timeout=30)

    # ---- working ----------------------------------------------------------------------

    def _loop(self) -> None:
        while True:
            task = self._queue.get()
            if task is None:
                return
            session, (force, reflect), future = task
            if self._stopping.is_set():
                future.cancel()
                continue
            self._busy.set()
            with self._lock:
                self._queued.discard(session)
            try:
                future.set_result(self.compact(session, force=force, reflect=reflect))
            except Exception as exc:
                log.exception("compaction failed", extra={"session": session})
                future.set_exception(exc)
            finally:
                self._busy.clear()

    def compact(self, session: str, *, force: bool = False, reflect: bool = False) -> dict[str, Any]:
        """Observe until nothing is due (force: everything), then reflect if due (reflect: anyway)."""
        conv = self.conversations
        report: dict[str, Any] = {"session": session, "observe_runs": [], "reflect_runs": []}
        while True:
            job = self.run_on_store(lambda: conv.begin_observe(session, force=force))
            if job is None:
                break
            try:
                result = self._call("observe", job.namespace, job.turns,
                                    lambda: self.provider.observe(job.turns, namespace=job.namespace))
                vectors = conv.embed_observations(job, result)  # on this thread, not the store's
                report["observe_runs"].append(self.run_on_store(lambda: conv.finish_observe(job, result, vectors)))
            except Exception as exc:
                self._fail(job.run_id, exc)
                raise
        job = self.run_on_store(lambda: conv.begin_reflect(session, force=reflect))
        if job is not None:
            try:
                result = self._call(
                    "reflect", job.namespace, job.observations,
                    lambda: self.provider.reflect(job.observations, namespace=job.namespace,
                                                  target_ratio=self.target_ratio))
                report["reflect_runs"].append(self.run_on_store(lambda: conv.finish_reflect(job, result)))
            except Exception as exc:
                self._fail(job.run_id, exc)
                raise
        report["counts"] = self.run_on_store(lambda: conv.counts(session))
        return report

    def _fail(self, run_id: int, exc: Exception) -> None:
        message = f"{type(exc).__name__}: {exc}"
        self.run_on_store(lambda: self.conversations.fail_run(run_id, message))

    def _call(self, task: str, namespace: str, payload: list, compute: Callable[[], Any]) -> Any:
        if self.cache is None:
            return compute()
        return self.cache.through(task, namespace, payload, compute, run_on_store=self.run_on_store)
