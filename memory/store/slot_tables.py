"""The slot_fills table (m027): which fact slot of whom each memory fills, recorded when it is
stored. What a slot is and who fills it is memory/language/slots.py's; this module keeps the
answers and finds, for a slot of a person, the newest live memories filling it.

    tables = SlotTables(store)
    tables.record(seq, "default", "2024-03-25T10:00:00.000000Z", {("workplace", "self")})
    tables.newest("default", "workplace", "self", limit=5)   # seqs, newest first
"""

from __future__ import annotations

from agentmemd.memory.store.backlog import Backlog
from agentmemd.memory.store.database import Store, _in_chunks


class SlotTables:
    def __init__(self, store: Store):
        self.store = store
        self.backlog = Backlog(store, "slot_fills_backlog")  # memories stored before m027

    def record(
        self, seq: int, namespace: str, created: str, fills: set[tuple[str, str]], *, again: bool = False
    ) -> None:
        """The (slot, subject) pairs memory ``seq`` fills (in the caller's transaction); ``again``: it
        was read before, by older rules, and what they recorded gives way."""
        if again:
            self.store.conn.execute("DELETE FROM slot_fills WHERE seq = ?", (seq,))
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

    def subjects(self, namespace: str, slot: str) -> list[str]:
        """Whom the namespace's memories record ``slot`` of (a name as said: "lucía pérez")."""
        rows = self.store.conn.execute(
            "SELECT DISTINCT subject FROM slot_fills WHERE namespace = ? AND slot = ?", (namespace, slot)
        )
        return sorted(r[0] for r in rows)

    def fills_of(self, seqs: list[int]) -> dict[int, set[tuple[str, str]]]:
        """seq -> the (slot, subject) pairs it fills, for those of ``seqs`` that fill any."""
        out: dict[int, set[tuple[str, str]]] = {}
        for chunk, marks in _in_chunks(seqs):
            for seq, slot, subject in self.store.conn.execute(
                f"SELECT seq, slot, subject FROM slot_fills WHERE seq IN ({marks})", chunk
            ):
                out.setdefault(seq, set()).add((slot, subject))
        return out
