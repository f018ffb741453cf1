"""The memory_times table (m028): the days a memory speaks of, resolved when it was stored ("last
weekend" in a turn said on Monday 14 October is 12-13 October). What a phrase means is
memory/language/dates.py's; this module keeps the ranges and finds the memories whose ranges meet
a question's.

    tables = TimeTables(store)
    tables.record(seq, "default", [("2024-10-11", "2024-10-14")])
    tables.meeting("default", "2024-10-10", "2024-10-12", limit=20)   # seqs, newest first
"""

from __future__ import annotations

from agentmemd.memory.store.backlog import Backlog
from agentmemd.memory.store.database import Store, _in_chunks


class TimeTables:
    def __init__(self, store: Store):
        self.store = store
        self.backlog = Backlog(store, "memory_times_backlog")  # memories stored before m028

    def record(self, seq: int, namespace: str, ranges: list[tuple[str, str]]) -> None:
        """The day ranges [first, after last) memory ``seq`` speaks of (in the caller's transaction)."""
        self.store.conn.executemany(
            "INSERT OR IGNORE INTO memory_times (seq, namespace, first_day, after_day) VALUES (?, ?, ?, ?)",
            [(seq, namespace, first, after) for first, after in sorted(set(ranges))],
        )

    def meeting(self, namespace: str, first: str, after: str, limit: int) -> list[int]:
        """The seqs of the newest live memories speaking of a day in [first, after), newest first."""
        rows = self.store.conn.execute(
            "SELECT DISTINCT t.seq FROM memory_times t JOIN memories m ON m.seq = t.seq "
            "WHERE t.namespace = ? AND t.first_day < ? AND t.after_day > ? AND m.superseded_by IS NULL "
            "ORDER BY t.seq DESC LIMIT ?",
            (namespace, after, first, limit),
        ).fetchall()
        return [r[0] for r in rows]

    def ranges_of(self, seqs: list[int]) -> dict[int, list[tuple[str, str]]]:
        """seq -> the day ranges it speaks of, for those of ``seqs`` that speak of any."""
        out: dict[int, list[tuple[str, str]]] = {}
        for chunk, marks in _in_chunks(seqs):
            for seq, first, after in self.store.conn.execute(
                f"SELECT seq, first_day, after_day FROM memory_times WHERE seq IN ({marks})", chunk
            ):
                out.setdefault(seq, []).append((first, after))
        return out
