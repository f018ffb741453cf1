"""Migration 015: memory windows."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m015_memory_windows(db):
    """Long texts (issue 16): a memory longer than the embedding model's window has a vector per
    overlapping window. The first stays in memories.embedding and memories_vec; the others are
    kept here (part 1, 2, ...) for as long as the memory, archived or not."""
    db.execute(
        """CREATE TABLE memory_windows (
            seq INTEGER NOT NULL,
            part INTEGER NOT NULL,
            embedding BLOB NOT NULL,
            PRIMARY KEY (seq, part)
        ) WITHOUT ROWID"""
    )
