"""Migration 004: workspace."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m004_workspace(db):
    # Which memory each Markdown item became (memory_id is always the current version),
    # and what each file looked like when last indexed (to catch up after downtime).
    db.execute(
        """CREATE TABLE workspace_items (
            memory_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            path TEXT NOT NULL,
            item_key TEXT NOT NULL,
            anchor TEXT NOT NULL,
            heading_path TEXT NOT NULL,
            content TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_workspace_items_path ON workspace_items(path)")
    db.execute(
        """CREATE TABLE workspace_files (
            path TEXT PRIMARY KEY,
            sha256 TEXT,
            size INTEGER NOT NULL,
            status TEXT NOT NULL,
            reason TEXT,
            indexed_at TEXT NOT NULL
        )"""
    )
