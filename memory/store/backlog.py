"""Memories stored before a record made at write time existed (which fact slot a memory fills,
m027; what dates it speaks of, m028): the migration that adds the record writes the highest seq
then stored under a meta key, and the daemon that applied it reads those memories once, newest
first, a chunk at a time.

    backlog = Backlog(store, "slot_fills_backlog")
    rows = backlog.next(2000)          # seq, namespace, content, type, created; None when none is left
    backlog.read_down_to(min(r["seq"] for r in rows))
"""

from __future__ import annotations

from typing import Any

from agentmemd.memory.store.database import Store


class Backlog:
    def __init__(self, store: Store, key: str):
        self.store = store
        self.key = key

    def next(self, limit: int) -> list[dict[str, Any]] | None:
        """Up to ``limit`` memories (live and archived) not yet read, highest seq first; None when
        there is no backlog (any more)."""
        row = self.store.conn.execute("SELECT value FROM meta WHERE key = ?", (self.key,)).fetchone()
        if row is None:
            return None
        upto = int(row[0])
        return self.store._rows(
            "SELECT seq, namespace, content, type, created FROM memories WHERE seq <= ? "
            "UNION ALL SELECT seq, namespace, content, type, created FROM memory_archive WHERE seq <= ? "
            "ORDER BY seq DESC LIMIT ?",
            (upto, upto, limit),
        )

    def read_down_to(self, seq: int) -> None:
        """Memories down to ``seq`` are read: what is left is below it."""
        self.store.conn.execute("UPDATE meta SET value = ? WHERE key = ?", (str(seq - 1), self.key))

    def done(self) -> None:
        self.store.conn.execute("DELETE FROM meta WHERE key = ?", (self.key,))
