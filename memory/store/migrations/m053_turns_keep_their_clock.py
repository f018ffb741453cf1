"""Migration 053: turns keep the offset of the clock they were written by."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m053_turns_keep_their_clock(db):
    """A chat message's minutes east of UTC as its export's zone read it (``utc_offset``): "morgen"
    written at 00:30 in Berlin (23:30 UTC the day before) is the day after the Berlin day, and the
    Observer resolved it against the UTC day, a day early. NULL (the turns before, a conversation's
    turns): the daemon's [channels] timezone."""
    db.execute("ALTER TABLE conversation_turns ADD COLUMN utc_offset INTEGER")
