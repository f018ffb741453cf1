"""The memory_secrets table (m035): which memories hold a secret, and of what kinds
(memory/safety/secrets.py), recorded when each is stored. A memory with no row holds none.

    tables = SecretTables(store)
    tables.record(seq, "default", ("card_number",))
    tables.in_namespace("default")       # seq -> kinds, for the namespace's memories holding one
"""

from __future__ import annotations

from agentmemd.memory.store.backlog import Backlog
from agentmemd.memory.store.database import Store, _in_chunks


class SecretTables:
    def __init__(self, store: Store):
        self.store = store
        self.backlog = Backlog(store, "memory_secrets_backlog")  # memories stored before m035

    def record(self, seq: int, namespace: str, kinds: tuple[str, ...], *, new: bool = False) -> None:
        """Memory ``seq``'s secrets (in the caller's transaction); none leaves no row. ``new``: it
        was just stored, so there is no row to replace (a seq is never handed out twice)."""
        if not kinds:
            if not new:
                self.store.conn.execute("DELETE FROM memory_secrets WHERE seq = ?", (seq,))
            return
        self.store.conn.execute(
            "INSERT OR REPLACE INTO memory_secrets (seq, namespace, kinds) VALUES (?, ?, ?)",
            (seq, namespace, ",".join(kinds)),
        )

    def in_namespace(self, namespace: str) -> dict[int, tuple[str, ...]]:
        """seq -> kinds of every memory (live or archived) of the namespace that holds a secret."""
        sql = "SELECT seq, kinds FROM memory_secrets WHERE namespace = ?"
        return {seq: tuple(kinds.split(",")) for seq, kinds in self.store.conn.execute(sql, (namespace,))}

    def of(self, seqs: list[int]) -> dict[int, tuple[str, ...]]:
        out: dict[int, tuple[str, ...]] = {}
        for chunk, marks in _in_chunks(seqs):
            for seq, kinds in self.store.conn.execute(
                f"SELECT seq, kinds FROM memory_secrets WHERE seq IN ({marks})", chunk
            ):
                out[seq] = tuple(kinds.split(","))
        return out

    def everywhere(self, limit: int) -> list[dict]:
        """The newest ``limit`` memories holding a secret, every namespace: seq, namespace, kinds."""
        return self.store._rows("SELECT seq, namespace, kinds FROM memory_secrets ORDER BY seq DESC LIMIT ?", (limit,))
