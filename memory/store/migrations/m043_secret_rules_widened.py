"""Migration 043: secret rules widened."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import mark_backlog


@migrations()
def m043_secret_rules_widened(db):
    """Passwords stated as German, Dutch and English people also state them ("das Passwort lautet
    …", "heißt …", "het wachtwoord luidt …", "the wifi password's …") are secrets now: the memories
    stored before are read once more for secrets, as for m035, so one of them is no longer packed
    unasked (recording a memory's secrets twice changes nothing)."""
    mark_backlog(db, "memory_secrets_backlog")
