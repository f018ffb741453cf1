"""The slot_fills table (m027): which fact slot of whom each memory fills, recorded when it is
stored. What a slot is and who fills it is memory/language/slots.py's; this module keeps the
answers and finds, for a slot of a person, the newest live memories filling it.

    tables = SlotTables(store)
    tables.record(seq, "default", "2024-03-25T10:00:00.000000Z", {("workplace", "self")})
    tables.newest("default", "workplace", "self", limit=5)   # seqs, newest first
"""

from __future__ import annotations

from typing import Any

from agentmemd.memory.store.database import Store, _in_chunks

BACKLOG = "slot_fills_backlog"  # meta: the highest seq stored before m027, not yet read


class SlotTables:
    def __init__(self, store: Store):
        self.store = store

    def record(self, seq: int, namespace: str, created: str, fills: set[tuple[str, str]]) -> None:
        """The (slot, subject) pairs memory ``seq`` fills (in the caller's transaction)."""
        self.store.conn.executemany(
            "INSERT OR IGNORE INTO slot_fills (seq, namespace, slot, subject, created) VALUES (?, ?, ?, ?, ?)",
            [(seq, namespace, slot, subject, created) for slot, subject in sorted(fills)],
        )

    def newest(self, namespace: str, slot: str, subject: str, limit: int) -> list[int]:
        """The seqs of the newest live memories filling ``slot`` of ``subject``, newest first."""
        rows = self.store.conn.execute(
            "SELECT f.seq FROM slot_fills f JOIN memories m ON m.seq = f.seq "
            "WHERE f.namespace = ? AND f.slot = ? AND f.subject = ? AND m.superseded_by IS NULL "
            "ORDER BY f.created DESC, f.seq DESC LIMIT ?",
            (namespace, slot, subject, limit),
        ).fetchall()
        return [r[0] for r in rows]

    def fills_of(self, seqs: list[int]) -> dict[int, set[tuple[str, str]]]:
        """seq -> the (slot, subject) pairs it fills, for those of ``seqs`` that fill any."""
        out: dict[int, set[tuple[str, str]]] = {}
        for chunk, marks in _in_chunks(seqs):
            for seq, slot, subject in self.store.conn.execute(
                f"SELECT seq, slot, subject FROM slot_fills WHERE seq IN ({marks})", chunk
            ):
                out.setdefault(seq, set()).add((slot, subject))
        return out

    def backlog(self, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` memories stored before m027 and not yet read, highest seq first (their
        seq, namespace, content, type, created); empty when every one has been."""
        row = self.store.conn.execute("SELECT value FROM meta WHERE key = ?", (BACKLOG,)).fetchone()
        if row is None:
            return []
        upto = int(row[0])
        return self.store._rows(
            "SELECT seq, namespace, content, type, created FROM memories WHERE seq <= ? "
            "UNION ALL SELECT seq, namespace, content, type, created FROM memory_archive WHERE seq <= ? "
            "ORDER BY seq DESC LIMIT ?",
            (upto, upto, limit),
        )

    def backlog_read_down_to(self, seq: int) -> None:
        """Memories down to ``seq`` are read: the backlog is what is below it."""
        self.store.conn.execute("UPDATE meta SET value = ? WHERE key = ?", (str(seq - 1), BACKLOG))

    def backlog_done(self) -> None:
        self.store.conn.execute("DELETE FROM meta WHERE key = ?", (BACKLOG,))
