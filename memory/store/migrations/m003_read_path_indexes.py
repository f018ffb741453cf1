"""Migration 003: read path indexes."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m003_read_path_indexes(db):
    # Pinned and recent candidates are LIMIT queries; these indexes make them index walks
    # instead of sorts over every persona/relational (or every) memory of a namespace.
    db.execute("DROP INDEX IF EXISTS idx_memories_ns_type")
    db.execute("DROP INDEX IF EXISTS idx_memories_ns_accessed")
    db.execute("CREATE INDEX idx_memories_pinned ON memories(namespace, type, priority DESC, seq)")
    db.execute("CREATE INDEX idx_memories_recent ON memories(namespace, last_accessed DESC, seq DESC)")
    # health/stats count live memories; rows carry their embedding, so a table scan reads it all.
    db.execute("CREATE INDEX idx_memories_live ON memories(superseded_by, namespace, type)")
