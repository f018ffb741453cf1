"""The memory_affect table (m031): how each memory feels, read when it was stored (valence, arousal,
an emotion: memory/language/affect.py). A memory with no row feels nothing (neutral).

    tables = AffectTables(store)
    tables.record(seq, "default", -0.65, 0.59, "anger")
    tables.of([seq, ...])          # seq -> (valence, arousal, emotion), for those that feel something
"""

from __future__ import annotations

from agentmemd.memory.store.backlog import Backlog
from agentmemd.memory.store.database import Store, _in_chunks


def _neutral(valence: float, arousal: float, emotion: str) -> bool:
    """Feels nothing: kept as no row."""
    return emotion == "neutral" and valence == 0 and arousal == 0


class AffectTables:
    def __init__(self, store: Store):
        self.store = store
        self.backlog = Backlog(store, "memory_affect_backlog")  # memories stored before m031

    def record(
        self, seq: int, namespace: str, valence: float, arousal: float, emotion: str, *, new: bool = False
    ) -> None:
        """Memory ``seq``'s affect (in the caller's transaction); a neutral one leaves no row.
        ``new``: it was just stored, so there is no row to replace."""
        if _neutral(valence, arousal, emotion):
            if not new:
                self.store.conn.execute("DELETE FROM memory_affect WHERE seq = ?", (seq,))
            return
        self.store.conn.execute(
            "INSERT OR REPLACE INTO memory_affect (seq, namespace, valence, arousal, emotion) VALUES (?, ?, ?, ?, ?)",
            (seq, namespace, valence, arousal, emotion),
        )

    def record_new(self, rows: list[tuple[int, str, float, float, str]]) -> None:
        """``record`` of memories just stored, (seq, namespace, valence, arousal, emotion) each, in
        one ``executemany``."""
        self.store.conn.executemany(
            "INSERT INTO memory_affect (seq, namespace, valence, arousal, emotion) VALUES (?, ?, ?, ?, ?)",
            [row for row in rows if not _neutral(*row[2:])],
        )

    def of(self, seqs: list[int]) -> dict[int, tuple[float, float, str]]:
        """seq -> (valence, arousal, emotion), for those of ``seqs`` that feel something."""
        out: dict[int, tuple[float, float, str]] = {}
        for chunk, marks in _in_chunks(seqs):
            for seq, valence, arousal, emotion in self.store.conn.execute(
                f"SELECT seq, valence, arousal, emotion FROM memory_affect WHERE seq IN ({marks})", chunk
            ):
                out[seq] = (valence, arousal, emotion)
        return out
