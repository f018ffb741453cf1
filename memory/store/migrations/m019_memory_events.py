"""Migration 019: memory events."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m019_memory_events(db):
    """What happened to a memory after it was stored (issue 18): reinforced, a new version,
    archived, restored, shared. A memory's page shows it, and its retention over time is redrawn
    from it. access_count: the count after the event (NULL where the event does not change it)."""
    db.execute(
        """CREATE TABLE memory_events (
            id INTEGER PRIMARY KEY,
            memory_id TEXT NOT NULL,
            at TEXT NOT NULL,
            kind TEXT NOT NULL,
            access_count REAL,
            detail TEXT
        )"""
    )
    db.execute("CREATE INDEX idx_memory_events ON memory_events(memory_id, id)")
    # Tiers are computed from these columns: stats, the sweep and a listing by tier read them from
    # this index instead of the rows (which carry their embeddings).
    db.execute(
        "CREATE INDEX idx_memories_access ON memories(superseded_by, namespace, seq, type, last_accessed, access_count)"
    )
