"""Migration 027: slot fills."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import mark_backlog


@migrations()
def m027_slot_fills(db):
    """Which fact slot of whom each memory fills (where someone lives or works, their partner, ...:
    memory/language/slots.py), found when it is stored, so that a change of fact is linked to the
    facts it changes however few words they share. Memories stored before this migration are read
    once by the daemon that applies it (``slot_fills_backlog`` in meta: the highest seq to read)."""
    db.execute(
        """CREATE TABLE slot_fills (
            seq INTEGER NOT NULL,
            namespace TEXT NOT NULL,
            slot TEXT NOT NULL,
            subject TEXT NOT NULL,
            created TEXT NOT NULL,
            PRIMARY KEY (seq, slot, subject)
        ) WITHOUT ROWID"""
    )
    db.execute("CREATE INDEX slot_fills_by_subject ON slot_fills (namespace, slot, subject, created)")
    mark_backlog(db, "slot_fills_backlog")
