"""Migration 049: secret values that are words."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import mark_backlog


@migrations()
def m049_secret_values_that_are_words(db):
    """ "My PIN is blocked" stated no PIN, and a password that is a plain word ("tangerine") made
    every memory using the word a secret ("The road is blocked by snow"), never packed and forgotten
    with it: such words are no secret's value now. And more is read as a secret (one-time and backup
    codes, seed phrases, newer key formats, locker and safe codes, PINs after the word) and less (an
    IMEI, an order number, a password manager's name). The memories stored before are read once
    more for secrets, as for m035: those marked for a word alone are packed again, the others masked."""
    mark_backlog(db, "memory_secrets_backlog")
