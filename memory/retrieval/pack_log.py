"""The pack log, written beside the requests.

Every pack is logged with all its candidates and their signals, for ``context.explain``. A pack
keeps them as one list per field (``Memories._log_columns``: a few hundred dicts per pack cost
more than the pack's own work) and hands the entry to this log, which a writer thread encodes,
compresses and commits with the others made meanwhile, in one short transaction on the store
thread. Until then the entry is pending: ``entry`` and ``chosen`` read it from memory, so an
explanation asked for right after the pack is never missed.

What is lost: a daemon killed with -9 loses the log of its last packs (a pack is a read; its
log is for explaining it). A clean stop writes everything pending first.

Used as a library (``run_on_store`` is ``run_here``), each entry is written at once.
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta
from typing import Any

from agentmemd.memory.core.clock import Clock, format_time
from agentmemd.memory.core.config import PackConfig
from agentmemd.memory.core.errors import StoreUnavailable
from agentmemd.memory.core.threads import RunOnStore, run_here
from agentmemd.memory.store.database import Store, prepared_pack

PRUNE_EVERY = 100  # packs between two prunings of the pack log
BATCH = 256  # entries per transaction at most

log = logging.getLogger("agentmemd")


def expand(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry with its candidates as one dict each, as context.explain shows them (an entry logged
    before issue 17 has them so already)."""
    columns = entry["candidates"]
    if not isinstance(columns, dict):
        return entry
    signals = columns["signals"]
    names = list(signals)
    fields = [f for f in columns if f != "signals"]
    candidates = []
    for i in range(len(columns["id"])):
        one = {f: columns[f][i] for f in fields}
        one["signals"] = {name: signals[name][i] for name in names}
        candidates.append(one)
    return {**entry, "candidates": candidates}


def _holds(entry: dict[str, Any], memory_ids: set[str]) -> bool:
    """Whether a pending entry's pack carried any of these memories (its text holds their words; a
    candidate left out is kept by id only, and context.explain reads its text from the store)."""
    return bool(memory_ids & {c["id"] for c in entry["chosen"]})


class PackLog:
    def __init__(self, store: Store, clock: Clock, cfg: PackConfig, run_on_store: RunOnStore = run_here):
        self.store = store
        self.clock = clock
        self.cfg = cfg
        self.run_on_store = run_on_store
        self.background = run_on_store is not run_here
        self._pending: dict[str, dict[str, Any]] = {}  # pack id -> entry not yet written, in pack order
        self._cond = threading.Condition()
        self._writing = False
        self._stopped = False
        self._logged = 0
        self._thread: threading.Thread | None = None
        self._discarded: set[str] = set()  # pending entries a forget removed before they were written

    # ---- the request side ------------------------------------------------------------------

    def submit(self, entry: dict[str, Any]) -> None:
        """Log a pack's entry (its candidates as columns)."""
        if not self.background or self._stopped:
            self._write([(entry["pack_id"], entry)])
            return
        with self._cond:
            self._pending[entry["pack_id"]] = entry
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="agentmemd-packlog", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def entry(self, pack_id: str) -> dict[str, Any] | None:
        """A logged pack's entry, pending or written, its candidates as dicts (None: not in the log)."""
        with self._cond:
            pending = self._pending.get(pack_id)
        found = pending if pending is not None else self.store.get_pack(pack_id)
        return None if found is None else expand(found)

    def chosen(self, pack_id: str) -> list[Any] | None:
        """What a logged pack chose."""
        with self._cond:
            pending = self._pending.get(pack_id)
        if pending is not None:
            return pending["chosen"]
        return self.store.pack_chosen(pack_id)

    def pending_count(self, namespace: str | None = None) -> int:
        with self._cond:
            return sum(1 for e in self._pending.values() if namespace is None or e["namespace"] == namespace)

    def pending_summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        """The pending entries (of one namespace, or all), newest first, as packs.list lists them."""
        with self._cond:
            entries = [e for e in self._pending.values() if namespace is None or e["namespace"] == namespace]
        keys = ("pack_id", "namespace", "query", "audience", "budget_tokens", "at", "tokens")
        return [{**{k: e.get(k) for k in keys}, "chosen": len(e["chosen"])} for e in reversed(entries)]

    def pending_holding(self, memory_ids: set[str]) -> int:
        """How many pending entries carried any of these memories."""
        with self._cond:
            return sum(1 for entry in self._pending.values() if _holds(entry, memory_ids))

    def discard_holding(self, memory_ids: set[str]) -> list[str]:
        """Drop pending entries that carried any of these memories (they are being
        forgotten); an entry already on its way to the store is not written. The packs that went
        (what was built with them goes too: the store never saw their ids)."""
        with self._cond:
            doomed = [pack_id for pack_id, entry in self._pending.items() if _holds(entry, memory_ids)]
            for pack_id in doomed:
                del self._pending[pack_id]
            self._discarded.update(doomed)
            self._cond.notify_all()
        return doomed

    # ---- the writer side -------------------------------------------------------------------

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every pack submitted so far is written (not from the store thread)."""
        with self._cond:
            self._cond.wait_for(lambda: not self._pending and not self._writing, timeout)

    def stop(self) -> None:
        """Write what is pending, then write each later entry at once."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(60)
        with self._cond:
            rest = list(self._pending.items())
        if rest:
            self._write(rest)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending or self._stopped)
                if self._stopped:
                    return
                batch = list(self._pending.items())[:BATCH]
                self._writing = True
            try:
                self._write(batch)
            except StoreUnavailable as exc:  # the store's fault is logged where it starts
                log.info(
                    "pack log write failed: the store is unavailable",
                    extra={"packs": len(batch), "reason": exc.message},
                )
            except Exception:
                log.exception("pack log write failed", extra={"packs": len(batch)})
            finally:
                with self._cond:
                    self._forget(batch)
                    self._writing = False
                    self._cond.notify_all()

    def _forget(self, batch: list[tuple[str, dict[str, Any]]]) -> None:
        with self._cond:
            for pack_id, _ in batch:
                self._pending.pop(pack_id, None)

    def _write(self, batch: list[tuple[str, dict[str, Any]]]) -> None:
        rows = [prepared_pack(entry) for _, entry in batch]  # encoded and compressed off the store thread
        first = self._logged + 1
        self._logged += len(rows)
        # The 1st, 101st, 201st... pack logged prunes (so the log holds at most keep + PRUNE_EVERY).
        prune = any(n % PRUNE_EVERY == 1 for n in range(first, self._logged + 1))
        oldest = format_time(self.clock.now() - timedelta(days=self.cfg.log_keep_days))

        def commit() -> None:
            with self._cond:  # a forget on the store thread may have dropped some meanwhile
                kept = [r for r in rows if r["pack_id"] not in self._discarded]
                self._discarded.difference_update(r["pack_id"] for r in rows)
            with self.store.transaction():
                self.store.log_packs(kept)
                if prune:  # the log stays within its retention (+ PRUNE_EVERY)
                    self.store.prune_pack_log(self.cfg.log_keep_packs, oldest)
            self._forget(batch)  # written: read from the store from now on (counted once)

        self.run_on_store(commit)
