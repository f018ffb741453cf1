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

    def mark(self, namespace: str) -> tuple[int, int]:
        """How many of the namespace's memories hold a secret, and the newest's seq: what changes
        when one is marked or forgotten (by this daemon or another on the same store)."""
        count, newest = self.store.conn.execute(
            "SELECT count(*), coalesce(max(seq), 0) FROM memory_secrets WHERE namespace = ?", (namespace,)
        ).fetchone()
        return int(count), int(newest)

    def current_holding(self, namespace: str) -> list[dict]:
        """id and words of each current memory of the namespace (not superseded) that holds a secret."""
        return self.store._rows(
            "SELECT m.id, m.content FROM memory_secrets s JOIN memories m ON m.seq = s.seq "
            "WHERE s.namespace = ? AND m.superseded_by IS NULL ORDER BY m.seq",
            (namespace,),
        )

    def contents(self, namespace: str) -> list[str]:
        """The words of every memory of the namespace (live or not) that holds a secret."""
        contents = []
        for table in ("memories", "memory_archive"):
            sql = f"SELECT m.content FROM memory_secrets s JOIN {table} m ON m.seq = s.seq WHERE s.namespace = ?"
            contents += [content for (content,) in self.store.conn.execute(sql, (namespace,))]
        return contents

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
