"""Migration 045: slot subjects after a colon."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import mark_backlog


@migrations()
def m045_slot_subjects_after_a_colon(db):
    """What an identity line says after its colon is said of the one it names first ("Anna is the
    sister of the user: lives in Munich" is Anna's residence, not the user's), and a job offer is not
    the job: the memories stored before are read once more for slots, and what the older rules
    recorded of each gives way to what these find."""
    mark_backlog(db, "slot_fills_backlog")
