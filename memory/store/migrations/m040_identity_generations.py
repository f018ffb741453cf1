"""Migration 040: identity generations."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m040_identity_generations(db):
    """How many times the identity graph's sources changed in each namespace (a persona or
    relational memory, or an item of SOUL.md, IDENTITY.md or USER.md, stored, replaced, forgotten,
    archived, shared with others or moved): a graph read before is read again when it changes
    (persona/identity/recall.py), without reading every source's id at each pack."""
    db.execute(
        """CREATE TABLE identity_generations (
            namespace TEXT PRIMARY KEY,
            generation INTEGER NOT NULL
        )"""
    )
