"""Migration 039: pack log goals and stages."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m039_pack_log_goals_and_stages(db):
    """A logged pack's goals block and how long each of its stages took (JSON), for
    context.explain: before, the goals were shown only until the entry was written."""
    db.execute("ALTER TABLE pack_log ADD COLUMN goals TEXT")
    db.execute("ALTER TABLE pack_log ADD COLUMN stages TEXT")
