"""Migration 054: more shapes of secret."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import mark_backlog


@migrations()
def m054_more_secret_shapes(db):
    """More is read as a secret (a value stated in the past, "the wifi code was Sardinha!2023"; after
    "pw"; a combination with dashes; backup codes with letters; a secret or token stated as such;
    a social security number with slashes) and less (a password hint; a speaker named after a list
    of words): the memories stored before are read once more for secrets, as for m049."""
    mark_backlog(db, "memory_secrets_backlog")
