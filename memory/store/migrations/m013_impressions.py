"""Migration 013: impressions."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m013_impressions(db):
    """The agent's impression of each person (seed 004, B.2), one per audience it was built in,
    so it is heard only where what it was built from may be (persona/impressions/impressions.py)."""
    db.execute(
        """CREATE TABLE impressions (
            namespace TEXT NOT NULL,
            person TEXT NOT NULL,
            audience TEXT NOT NULL,
            content TEXT NOT NULL,
            version INTEGER NOT NULL,
            updated TEXT NOT NULL,
            PRIMARY KEY (namespace, person, audience)
        ) WITHOUT ROWID"""
    )
