"""Migration 031: memory affect."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import mark_backlog


@migrations()
def m031_memory_affect(db):
    """How each memory feels (seed 003, 3.3; memory/language/affect.py): valence, arousal and an
    emotion, read from its words when it is stored (or given with it). Only memories that feel
    something have a row. Memories stored before are read once, as for m027."""
    db.execute(
        """CREATE TABLE memory_affect (
            seq INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            valence REAL NOT NULL,
            arousal REAL NOT NULL,
            emotion TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX memory_affect_by_emotion ON memory_affect (namespace, emotion)")
    mark_backlog(db, "memory_affect_backlog")
