"""Migration 042: ally slot."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import mark_backlog


@migrations()
def m042_ally_slot(db):
    """A slot added since m027 (whom someone works with, backs or votes with now), and the agent's
    own turns now fill the agent's slots: the memories stored before are read once more, as for
    m029, so both are found in them too (recording a memory's slots twice changes nothing)."""
    mark_backlog(db, "slot_fills_backlog")
