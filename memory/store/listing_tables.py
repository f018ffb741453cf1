"""Memories page by page, filtered (the dashboard's memory list): current versions of
the live table or of the archive, newest stored first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agentmemd.memory.core.text import fold
from agentmemd.memory.store.database import Store, _in_chunks, age_columns

# What a listing shows of a memory: everything but its embedding and its context.
LISTED = (
    "seq, id, namespace, content, type, priority, source, created, ingested, last_accessed, access_count, "
    "version, supersedes, audience"
)


def _like(text: str) -> str:
    """``text`` as a LIKE pattern that matches it anywhere, its wildcards taken literally."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


@dataclass(frozen=True)
class ListingFilter:
    namespace: str | None = None
    type: str | None = None
    source_contains: str | None = None
    content_contains: str | None = None
    created_from: str | None = None  # ISO text, inclusive
    created_before: str | None = None  # ISO text, exclusive
    emotion: str | None = None  # only memories that feel this (memory_affect; "neutral": those with no row)
    holds_secret: bool = False  # only memories with a memory_secrets row
    said_by: str | None = None  # only what this person said (or anyone merged into them)
    archived: bool = False

    @property
    def table(self) -> str:
        return "memory_archive" if self.archived else "memories"

    def where(self) -> tuple[str, list[Any]]:
        clauses, params = ["superseded_by IS NULL"], []
        for column, value in (("namespace", self.namespace), ("type", self.type)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        if self.source_contains:
            clauses.append("source LIKE ? ESCAPE '\\'")
            params.append(_like(self.source_contains))
        if self.content_contains:  # accents and case aside: "lucia" finds "Lucía"
            clauses.append("agentmemd_fold(content) LIKE ? ESCAPE '\\'")
            params.append(_like(fold(self.content_contains)))
        if self.created_from:
            clauses.append("created >= ?")
            params.append(self.created_from)
        if self.created_before:
            clauses.append("created < ?")
            params.append(self.created_before)
        if self.emotion == "neutral":
            clauses.append("seq NOT IN (SELECT seq FROM memory_affect)")
        elif self.emotion:
            clauses.append("seq IN (SELECT seq FROM memory_affect WHERE emotion = ?)")
            params.append(self.emotion)
        if self.holds_secret:
            clauses.append("seq IN (SELECT seq FROM memory_secrets)")
        if self.said_by:
            clauses.append("(said_by = ? OR said_by IN (SELECT id FROM people WHERE merged_into = ?))")
            params += [self.said_by, self.said_by]
        return " AND ".join(clauses), params


class ListingTables:
    def __init__(self, store: Store):
        self.store = store

    def count(self, f: ListingFilter) -> int:
        where, params = f.where()
        return self.store.conn.execute(f"SELECT count(*) FROM {f.table} WHERE {where}", params).fetchone()[0]

    def page(self, f: ListingFilter, limit: int, offset: int) -> list[dict[str, Any]]:
        """The page's seqs first (from an index when the filters allow), then only their rows: a
        row carries its embedding, and skipping 100,000 of them costs ~0.2 s."""
        where, params = f.where()
        sql = f"SELECT seq FROM {f.table} WHERE {where} ORDER BY seq DESC LIMIT ? OFFSET ?"
        return self.rows(f, [r[0] for r in self.store.conn.execute(sql, [*params, limit, offset])])

    def access_ages(self, f: ListingFilter, now: str) -> tuple[np.ndarray, np.ndarray]:
        """The seqs of every match, newest first, and their ages (database.age_columns): what a
        tier is computed from (idx_memories_access holds them when no text filter needs the rows)."""
        where, params = f.where()
        columns, age_params = age_columns(now)
        sql = f"SELECT seq, {columns} FROM {f.table} WHERE {where} ORDER BY seq DESC"
        found = np.array(self.store.conn.execute(sql, [*age_params, *params]).fetchall(), dtype=np.float64)
        found = found.reshape(-1, 4)
        return found[:, 0].astype(np.int64), found[:, 1:]

    def rows(self, f: ListingFilter, seqs: list[int]) -> list[dict[str, Any]]:
        """The listed columns of these seqs, in their order."""
        found: dict[int, dict[str, Any]] = {}
        for chunk, marks in _in_chunks(seqs):
            for row in self.store._rows(f"SELECT {LISTED} FROM {f.table} WHERE seq IN ({marks})", chunk):
                found[row["seq"]] = row
        return [found[s] for s in seqs if s in found]

    def namespaces(self) -> list[str]:
        """Every namespace with a memory, live or archived."""
        return [
            r[0]
            for r in self.store.conn.execute(
                "SELECT DISTINCT namespace FROM memories UNION SELECT DISTINCT namespace FROM memory_archive ORDER BY 1"
            )
        ]
