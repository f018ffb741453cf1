"""Migration 044: repeated secrets."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import mark_backlog


@migrations()
def m044_repeated_secrets(db):
    """A secret said again without the words that marked it (the agent's "Noted: Tortuga$Lenta42"
    after "my bank password is Tortuga$Lenta42") is a secret too now
    (memory/safety/known_secrets.py): the memories stored before are read once more for secrets,
    as for m035, so such a repeat is no longer packed unasked."""
    mark_backlog(db, "memory_secrets_backlog")
