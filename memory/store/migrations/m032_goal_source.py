"""Migration 032: goal source."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m032_goal_source(db):
    """Where a goal was written: NULL for one added by a door (goal.add), "GOALS.md L<n>" for a line
    of the workspace's GOALS.md (persona/goals/goals_file.py), which the file then owns."""
    db.execute("ALTER TABLE goals ADD COLUMN source TEXT")
