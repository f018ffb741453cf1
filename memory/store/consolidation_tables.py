"""Consolidation's table: each pattern, principle or insight memory with the memories it was built from."""

from __future__ import annotations

import json
from typing import Any

from agentmemd.memory.store.database import Store, from_blob


class ConsolidationTables:
    def __init__(self, store: Store):
        self.store = store
        self.db = store.db

    def level0(self, namespace: str, limit: int) -> list[tuple[str, str, str, str, Any]]:
        """(id, content, type, created, vector, ingested, audience) of the newest-accessed live memories that are not
        themselves consolidated nodes, persona and episodes left out (a turn as said is consolidated
        through the observations made of it), and nothing said in a private chat: a node
        is the user's own (memory/core/disclosure.py), and what X said in private may not reach the
        user's conversations by way of a pattern built from it."""
        rows = self.store.conn.execute(
            "SELECT id, content, type, created, embedding, ingested, audience FROM memories "
            "WHERE namespace = ? AND superseded_by IS NULL AND type NOT IN ('persona', 'episode') "
            "AND length(embedding) > 0 "  # one still waiting for its vector (another model) joins later
            "AND audience NOT LIKE 'private:%' "
            "AND id NOT IN (SELECT memory_id FROM consolidation_nodes) "
            "ORDER BY last_accessed DESC, seq DESC LIMIT ?",
            (namespace, limit),
        ).fetchall()
        return [(r[0], r[1], r[2], r[3], from_blob(r[4]), r[5], r[6]) for r in rows]

    def stored(self, namespace: str) -> list[dict[str, Any]]:
        """Stored nodes, by level, with their memory's content (None: the memory is no longer live)."""
        return self.store._rows(
            "SELECT c.memory_id, c.level, c.leaves, c.sources, c.keywords, c.derived_at, m.content, m.type, "
            "m.audience FROM consolidation_nodes c "
            "LEFT JOIN memories m ON m.id = c.memory_id AND m.superseded_by IS NULL "
            "WHERE c.namespace = ? ORDER BY c.level, c.rowid",
            (namespace,),
        )

    def namespaces(self) -> list[str]:
        return [
            r[0]
            for r in self.store.conn.execute(
                "SELECT DISTINCT namespace FROM memories WHERE superseded_by IS NULL "
                "UNION SELECT DISTINCT namespace FROM consolidation_nodes ORDER BY 1"
            )
        ]

    def put_node(self, memory_id: str, namespace: str, level: int, leaves, sources, keywords, derived_at: str):
        self.store.conn.execute(
            "INSERT INTO consolidation_nodes(memory_id, namespace, level, leaves, sources, keywords, derived_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(memory_id) DO UPDATE SET leaves = excluded.leaves, "
            "sources = excluded.sources, keywords = excluded.keywords, derived_at = excluded.derived_at",
            (memory_id, namespace, level, json.dumps(leaves), json.dumps(sources), json.dumps(keywords), derived_at),
        )

    def drop_node(self, memory_id: str) -> None:
        self.store.conn.execute("DELETE FROM consolidation_nodes WHERE memory_id = ?", (memory_id,))

    def nodes(self, namespace: str, level: int | None) -> list[dict[str, Any]]:
        sql = (
            "SELECT c.memory_id AS id, c.level, c.sources, c.leaves, c.keywords, c.derived_at, m.content, m.type, "
            "m.audience FROM consolidation_nodes c JOIN memories m ON m.id = c.memory_id WHERE c.namespace = ?"
        )
        params: list[Any] = [namespace]
        if level is not None:
            sql += " AND c.level = ?"
            params.append(level)
        return self.store._rows(sql + " ORDER BY c.level DESC, c.rowid", params)

    def leaves_of(self, memory_ids: list[str]) -> dict[str, list[str]]:
        """node memory id -> the ids of the level-0 memories under it."""
        if not memory_ids:
            return {}
        rows = self.store.conn.execute(
            f"SELECT memory_id, leaves FROM consolidation_nodes WHERE memory_id IN ({', '.join('?' * len(memory_ids))})",
            memory_ids,
        ).fetchall()
        return {memory_id: json.loads(leaves) for memory_id, leaves in rows}
