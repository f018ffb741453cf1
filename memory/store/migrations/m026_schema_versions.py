"""Migration 026: schema versions."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m026_schema_versions(db):
    """Which agentmemd wrote the schema: a row each time one applies migrations (its version, the
    newest migration then, the ones it applied, when). An older agentmemd reads the last row to
    refuse a data dir a newer one wrote, naming both versions (store/schema.py)."""
    db.execute(
        """CREATE TABLE schema_versions (
            seq INTEGER PRIMARY KEY,
            agentmemd TEXT NOT NULL,
            schema TEXT NOT NULL,
            applied TEXT NOT NULL,
            at TEXT NOT NULL
        )"""
    )
