"""Migration 033: forgotten words."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m033_forgotten_words(db):
    """What a person forgot stays forgotten (memory/retrieval/lineage.py): a fingerprint of each
    forgotten turn's words (SHA-256 of the words folded for case, width and spacing), so a later
    export, a re-import under another key or a resent webhook stores that message as forgotten
    instead of bringing its words back. The words themselves are not kept."""
    db.execute(
        """CREATE TABLE forgotten_words (
            namespace TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            at TEXT NOT NULL,
            PRIMARY KEY (namespace, fingerprint)
        ) WITHOUT ROWID"""
    )
