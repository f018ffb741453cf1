"""Migration 002: pack log."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m002_pack_log(db):
    db.execute(
        """CREATE TABLE pack_log (
            pack_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            query TEXT NOT NULL,
            budget_tokens INTEGER NOT NULL,
            at TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            text TEXT NOT NULL,
            candidates TEXT NOT NULL,
            chosen TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_pack_log_at ON pack_log(at)")
