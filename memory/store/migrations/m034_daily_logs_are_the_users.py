"""Migration 034: daily logs are the users."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m034_daily_logs_are_the_users(db):
    """The daily logs (memory/YYYY-MM-DD.md) are the user's own, as MEMORY.md is: a line a person
    keeps from the daemon's section must not be heard by every chat. Items indexed as shared
    before become the user's (an item annotated shared gets it back at its file's next sync)."""
    for table in ("memories", "memory_archive"):
        db.execute(
            f"UPDATE {table} SET audience = 'user' WHERE audience = 'shared' AND source LIKE 'memory/____-__-__.md%' "
            "AND tags LIKE '%\"workspace\"%'"
        )
