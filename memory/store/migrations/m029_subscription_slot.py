"""Migration 029: subscription slot."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import mark_backlog


@migrations()
def m029_subscription_slot(db):
    """A slot added since m027 (what a membership or subscription costs): the memories stored
    before are read once more, as for m027, so the slot is found in them too (recording a memory's
    slots twice changes nothing)."""
    mark_backlog(db, "slot_fills_backlog")
