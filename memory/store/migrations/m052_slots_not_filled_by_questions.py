"""Migration 052: no slot filled by a question or a supposition."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import mark_backlog


@migrations()
def m052_slots_not_filled_by_questions(db):
    """A sentence that asks or supposes fills no fact slot ("If I moved to Lisbon, I'd learn to
    surf" was where the user lived now; "¿Debería dejar mi trabajo en el banco?" where they worked):
    the memories stored before are read once more for slots, as for m047."""
    mark_backlog(db, "slot_fills_backlog")
