"""Migration 024: corrected turns."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m024_corrected_turns(db):
    """A chat message its sender edited or deleted after it was stored (memory/channels/corrections.py):
    ``edited``, when the turn's text was last replaced by an edit (an older edit arriving later is
    not applied over it); ``deleted``, when it was deleted: the turn stays as a tombstone, its time and
    speaker kept, its text a marker, and no edit brings it back."""
    db.execute("ALTER TABLE conversation_turns ADD COLUMN edited TEXT")
    db.execute("ALTER TABLE conversation_turns ADD COLUMN deleted TEXT")
