"""Migration 035: memory secrets."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import mark_backlog


@migrations()
def m035_memory_secrets(db):
    """Which memories hold a secret, and of what kinds (memory/safety/secrets.py): a credential, a
    password, a card number, an IBAN, a national ID, a passport number. Such a memory is kept and
    marked, and never packed unless its owner asks for that kind. Only memories holding one have a
    row. Memories stored before are read once, as for m027."""
    db.execute(
        """CREATE TABLE memory_secrets (
            seq INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            kinds TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX memory_secrets_by_namespace ON memory_secrets (namespace)")
    mark_backlog(db, "memory_secrets_backlog")
