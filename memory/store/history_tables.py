"""A memory's history: its events (m019 memory_events), its chain of versions, and what forgetting
it would remove."""

from __future__ import annotations

import json
import zlib
from typing import Any

from agentmemd.memory.store.database import Store, _in_chunks, _unpack_json

EVENT_COLUMNS = "memory_id, at, kind, access_count, detail"


class HistoryTables:
    def __init__(self, store: Store):
        self.store = store

    def record(self, events: list[tuple[str, str, str, float | None, str | None]]) -> None:
        """(memory_id, at, kind, access_count, detail) rows, inside the caller's transaction."""
        self.store.conn.executemany(f"INSERT INTO memory_events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?)", events)

    def events(self, memory_ids: list[str]) -> list[dict[str, Any]]:
        """The events of these memories (a chain's versions), oldest first."""
        out: list[dict[str, Any]] = []
        for chunk, marks in _in_chunks(memory_ids):
            out.extend(
                self.store._rows(
                    f"SELECT id, {EVENT_COLUMNS} FROM memory_events WHERE memory_id IN ({marks}) ORDER BY id", chunk
                )
            )
        return sorted(out, key=lambda e: e["id"])

    def _version(self, memory_id: str) -> dict[str, Any] | None:
        found = self.store.get(memory_id)
        if found is None:
            return None
        row, archived = found
        row = {k: v for k, v in row.items() if k != "embedding"}
        return {**row, "archived": archived}

    def chain(self, memory_id: str) -> list[dict[str, Any]]:
        """Every version of the memory ``memory_id`` is one of, oldest first, live or archived,
        without their embeddings."""
        first = self._version(memory_id)
        if first is None:
            return []
        return [*reversed(self._walk(first, "supersedes")), first, *self._walk(first, "superseded_by")]

    def _walk(self, row: dict[str, Any], link: str) -> list[dict[str, Any]]:
        """The versions reached from ``row`` by following ``link`` (supersedes: older; superseded_by: newer)."""
        out: list[dict[str, Any]] = []
        while row[link] and len(out) < 10_000:
            row = self._version(row[link])
            if row is None:
                break
            out.append(row)
        return out

    def workspace_item(self, memory_id: str) -> dict[str, Any] | None:
        rows = self.store._rows("SELECT path, heading_path FROM workspace_items WHERE memory_id = ?", (memory_id,))
        return rows[0] if rows else None

    def consolidation_node(self, memory_id: str) -> dict[str, Any] | None:
        rows = self.store._rows(
            "SELECT level, sources, keywords, derived_at FROM consolidation_nodes WHERE memory_id = ?", (memory_id,)
        )
        if not rows:
            return None
        row = rows[0]
        return {**row, "sources": json.loads(row["sources"]), "keywords": json.loads(row["keywords"])}

    def source_turns(self, memory_ids: list[str], limit: int) -> list[dict[str, Any]]:
        """The conversation turns these memories were made from (m017), oldest first."""
        out: list[dict[str, Any]] = []
        for chunk, marks in _in_chunks(memory_ids):
            out.extend(
                self.store._rows(
                    "SELECT DISTINCT t.seq, t.session, t.role, t.speaker, t.content, t.ts, t.chat "
                    f"FROM memory_turns l JOIN conversation_turns t ON t.seq = l.turn_seq WHERE l.memory_id IN ({marks}) "
                    "ORDER BY t.seq LIMIT ?",
                    [*chunk, limit],
                )
            )
        return sorted({t["seq"]: t for t in out}.values(), key=lambda t: t["seq"])[:limit]

    def logged_packs(self, namespace: str | None, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
        """The newest logged packs (without their candidates), how many in all."""
        where, params = ("WHERE namespace = ?", [namespace]) if namespace is not None else ("", [])
        total = self.store.conn.execute(f"SELECT count(*) FROM pack_log {where}", params).fetchone()[0]
        rows = self.store._rows(
            "SELECT pack_id, namespace, query, audience, budget_tokens, at, tokens, chosen "
            f"FROM pack_log {where} ORDER BY at DESC, rowid DESC LIMIT ? OFFSET ?",
            [*params, limit, offset],
        )
        return [{**r, "chosen": len(_unpack_json(r["chosen"]))} for r in rows], total

    def packs_logged_of(self, pack_ids: list[str]) -> int:
        """How many of these packs are written to the log."""
        return self._count("SELECT count(*) FROM pack_log WHERE pack_id IN ({marks})", pack_ids)

    def _count(self, sql: str, values: list) -> int:
        """``sql`` (a count with ``IN ({marks})``) summed over ``values`` in chunks."""
        conn = self.store.conn
        return sum(conn.execute(sql.format(marks=marks), chunk).fetchone()[0] for chunk, marks in _in_chunks(values))

    def forget_footprint(self, versions: list[dict[str, Any]], turns: list[dict[str, Any]]) -> dict[str, Any]:
        """What forgetting these versions (and these turns) removes besides their
        rows: counts by place, and the logged packs that hold their text."""
        ids = [v["id"] for v in versions]
        seqs = [v["seq"] for v in versions]
        conn, count = self.store.conn, self._count
        indexed = [v["seq"] for v in versions if not v["archived"] and not v["superseded_by"]]
        return {
            "search_index_entries": len(indexed),  # its words (FTS5) and its vector, for the live version
            "windows": count("SELECT count(*) FROM memory_windows WHERE seq IN ({marks})", seqs),
            "events": count("SELECT count(*) FROM memory_events WHERE memory_id IN ({marks})", ids),
            "turn_links": count("SELECT count(*) FROM memory_turns WHERE memory_id IN ({marks})", ids),
            "consolidation_nodes": count("SELECT count(*) FROM consolidation_nodes WHERE memory_id IN ({marks})", ids),
            "workspace_items": sorted(
                {
                    r[0]
                    for chunk, marks in _in_chunks(ids)
                    for r in conn.execute(f"SELECT path FROM workspace_items WHERE memory_id IN ({marks})", chunk)
                }
                | self._kept_lines_quoting(versions)
            ),
            "packs_logged": self.packs_holding(ids),
            "cached_responses": self.cache_entries_holding(versions, turns),
        }

    def _kept_lines_quoting(self, versions: list[dict[str, Any]]) -> set[str]:
        """Files holding a line a person kept that quotes one of these memories: a line of the
        daemon's section they edited is moved above it as theirs, its `id` and words with it."""
        found: set[str] = set()
        sql = "SELECT path FROM workspace_items WHERE namespace = ? AND instr(content, ?) > 0"
        for namespace, memory_id in sorted({(v["namespace"], v["id"]) for v in versions}):
            found.update(r[0] for r in self.store.conn.execute(sql, (namespace, f"`{memory_id}`")))
        return found

    def cache_entries_holding(self, versions: list[dict[str, Any]], turns: list[dict[str, Any]] = ()) -> list[int]:  # type: ignore[assignment]
        """Language-model cache entries of the memories' and turns' namespaces whose prompt or
        response holds a version's text or a turn's words (a summary, an Observer's prompt or an
        impression may quote them)."""
        found: set[int] = set()
        sql = "SELECT id FROM llm_cache WHERE namespace = ? AND (instr(key_text, ?) > 0 OR instr(response, ?) > 0)"
        needles = {(v["namespace"], v["content"]) for v in versions}
        namespaces = {v["namespace"] for v in versions} | {t["namespace"] for t in turns}
        needles |= {(namespace, t["content"]) for namespace in namespaces for t in turns if t["content"].strip()}
        for namespace, text in sorted(needles):
            found.update(r[0] for r in self.store.conn.execute(sql, (namespace, text, text)))
        return sorted(found)

    def forget_generation(self, namespace: str) -> int:
        """How many forgets the namespace has seen: a number that changes whenever one runs."""
        row = self.store.conn.execute(
            "SELECT generation FROM forget_generations WHERE namespace = ?", (namespace,)
        ).fetchone()
        return row[0] if row else 0

    def packs_holding(self, memory_ids: list[str]) -> list[str]:
        """Logged packs that carried any of these memories (their text holds its words). A pack
        that only considered one keeps its id, no word of it (context.explain reads candidates'
        texts from the store): it stays, and says the candidate was forgotten."""
        # A memory id is random and quoted in the entry's JSON: looking for '"id"' in the decompressed
        # bytes finds it without parsing (0.05 ms a pack instead of 0.18; the log keeps up to 10,000).
        needles = [json.dumps(memory_id).encode() for memory_id in memory_ids]
        found = []
        for pack_id, chosen in self.store.conn.execute("SELECT pack_id, chosen FROM pack_log"):
            text = _json_bytes(chosen)
            if any(needle in text for needle in needles):
                found.append(pack_id)
        return found

    def same_words(self, namespace: str, content: str) -> list[dict[str, Any]]:
        """Current memories (live or archived) of the namespace whose text equals ``content`` but
        for case (the caller compares spacing and Unicode forms)."""
        sql = "SELECT id, content FROM {table} WHERE namespace = ? AND superseded_by IS NULL AND lower(content) = lower(?)"
        return [
            {"id": row[0], "content": row[1]}
            for table in ("memories", "memory_archive")
            for row in self.store.conn.execute(sql.format(table=table), (namespace, " ".join(content.split())))
        ]

    def forget(self, namespaces: set[str], versions: list[dict[str, Any]], packs: list[str], cached: list[int]) -> None:
        """Delete the versions and everything that holds them, and count a forget in each of
        ``namespaces`` (inside the caller's transaction)."""
        ids = [v["id"] for v in versions]
        conn = self.store.conn
        for namespace in sorted(namespaces | {v["namespace"] for v in versions}):
            conn.execute(
                "INSERT INTO forget_generations (namespace, generation) VALUES (?, 1) ON CONFLICT (namespace) "
                "DO UPDATE SET generation = forget_generations.generation + 1",
                (namespace,),
            )
        for v in versions:
            self.store.delete_row(v["seq"], archived=v["archived"])
        for chunk, marks in _in_chunks(ids):
            for table in ("memory_events", "memory_turns", "observations", "consolidation_nodes", "workspace_items"):
                conn.execute(f"DELETE FROM {table} WHERE memory_id IN ({marks})", chunk)
        for chunk, marks in _in_chunks(packs):
            conn.execute(f"DELETE FROM pack_log WHERE pack_id IN ({marks})", chunk)
        for chunk, marks in _in_chunks(cached):
            conn.execute(f"DELETE FROM llm_cache WHERE id IN ({marks})", chunk)


def _json_bytes(stored: str | bytes) -> bytes:
    """A pack log column's JSON as bytes: compressed (issue 17) or plain text (older entries)."""
    return zlib.decompress(stored) if isinstance(stored, bytes) else stored.encode()
