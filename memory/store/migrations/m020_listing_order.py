"""Migration 020: listing order."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m020_listing_order(db):
    """The dashboard's memory list walks current versions newest first (issue 18): by this index,
    instead of sorting every live memory for each page."""
    db.execute("CREATE INDEX idx_memories_current ON memories(superseded_by, seq)")
