"""Migration 016: episode index."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m016_episode_index(db):
    """A memory's neighbours in its namespace (the live memories stored just before and after it)
    are one index seek each: retrieval lifts a memory by its episode's match (issue 16)."""
    db.execute("CREATE INDEX idx_memories_episode ON memories(namespace, superseded_by, seq)")
