"""Migration 047: partners named in other languages."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import mark_backlog


@migrations()
def m047_partners_in_other_languages(db):
    """A partner is recognised in German, French, Spanish, Portuguese and Italian too ("mi novia se
    llama Lena", "meine Freundin heißt Lena"): the memories stored before are read once more for
    slots, what the older rules recorded of each giving way to what these find."""
    mark_backlog(db, "slot_fills_backlog")
