"""Re-embedding after a change of ``[embedding] model``: the vectors of the new model made in the
background, a batch at a time, newest memories first, while requests are served.

The store drops the old model's vectors as it opens (``Store.switch_model``); every memory
version waits with an empty vector until this worker gives it one. A memory waiting is found by
its words, not by meaning. Each batch commits on its own, so a daemon stopped (or killed) half
way goes on where it was at its next start. ``health`` and ``doctor`` show the progress.
"""

from __future__ import annotations

import logging
import threading
import time
from functools import partial
from typing import Any

import numpy as np

from agentmemd.memory.core.threads import RunOnStore, become_background
from agentmemd.memory.store.database import Store, indexed_text

log = logging.getLogger("agentmemd.reembedding")

BATCH = 256  # memory versions embedded between two commits


class Reembedding:
    def __init__(self, store: Store, embedder, model: str, run_on_store: RunOnStore, *, background: bool = True):
        """``background`` False (a library whose thread is the store thread): ``start`` does the
        whole job before it returns."""
        self.store = store
        self.embedder = embedder
        self.model = model
        self.run_on_store = run_on_store
        self.background = background
        self.done = 0  # versions given a vector since this start
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._failure: str | None = None

    def start(self) -> None:
        if self.run_on_store(self.store.reembedding_from) is None:
            return
        if not self.background:
            self.run()
            return
        self._thread = threading.Thread(target=self._run_logged, name="agentmemd-reembedding", daemon=True)
        self._thread.start()

    def stop(self, *, wait: bool = True) -> None:
        """Let the batch in progress commit, then end (``wait``: return once it has)."""
        self._stopping.set()
        if wait and self._thread is not None:
            self._thread.join(timeout=60)

    def working(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def progress(self) -> dict[str, Any] | None:
        """Where the re-embedding stands (None: there is none)."""
        old = self.store.reembedding_from()
        if old is None:
            return None
        waiting, total = self.store.awaiting_count()
        return {
            "model": self.model,
            "from_model": old,
            "done": total - waiting,
            "waiting": waiting,
            "memories": total,
            "running": self.working() or not self.background,
            "failure": self._failure,
        }

    def _run_logged(self) -> None:
        become_background()
        try:
            self.run()
        except Exception as exc:  # what is done stays done; the next start goes on from there
            self._failure = f"{type(exc).__name__}: {exc}"
            log.exception("re-embedding stopped")

    def run(self) -> int:
        """Give every waiting memory version (and goal) its vector; how many were given one."""
        began = time.monotonic()
        old = self.run_on_store(self.store.reembedding_from)
        log.info("re-embedding every memory", extra={"model": self.model, "from_model": old})
        goals = self.run_on_store(self.store.goals_awaiting_vectors)
        if goals:
            vectors = self.embedder.embed([text for _, text in goals])
            self.run_on_store(partial(self._store_goals, goals, vectors))
        while not self._stopping.is_set():
            rows = self.run_on_store(partial(self.store.awaiting_vectors, BATCH))
            if not rows:
                if not self.run_on_store(self._finish):
                    continue
                log.info(
                    "re-embedding done",
                    extra={"model": self.model, "memories": self.done, "seconds": round(time.monotonic() - began, 1)},
                )
                break
            vectors = self.embedder.embed_passages([indexed_text(r["content"], r["context"]) for r in rows])
            self.done += self.run_on_store(partial(self._store_batch, rows, vectors))
        return self.done

    def _store_goals(self, goals: list[tuple[str, str]], vectors: np.ndarray) -> None:
        with self.store.transaction():
            for (goal_id, text), vector in zip(goals, vectors):
                self.store.set_goal_vector(goal_id, text, vector)

    def _store_batch(self, rows: list[dict[str, Any]], vectors: list[np.ndarray]) -> int:
        with self.store.transaction():
            return sum(self.store.set_vectors(r["seq"], r["place"], v) for r, v in zip(rows, vectors))

    def _finish(self) -> bool:
        """Done, unless a version became one without a vector meanwhile (restored from the archive
        while its batch was embedded): the loop takes it next."""
        if self.store.awaiting_vectors(1):
            return False
        with self.store.transaction():
            self.store.reembedding_done()
        return True
