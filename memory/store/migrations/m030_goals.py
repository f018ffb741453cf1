"""Migration 030: goals."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m030_goals(db):
    """Goals (seed 004's, and a person's standing intents): what the agent is working towards, with
    a priority, a status, an optional due time or trigger phrase, and dated progress notes. The
    embedding of the goal's text is what a request is compared with."""
    db.execute(
        """CREATE TABLE goals (
            id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            text TEXT NOT NULL,
            priority TEXT NOT NULL,
            status TEXT NOT NULL,
            due TEXT,
            trigger TEXT,
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            finished TEXT,
            surfaced TEXT,
            embedding BLOB NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_goals_ns_status ON goals(namespace, status, due)")
    db.execute(
        """CREATE TABLE goal_notes (
            id INTEGER PRIMARY KEY,
            goal TEXT NOT NULL REFERENCES goals(id) ON DELETE CASCADE,
            at TEXT NOT NULL,
            text TEXT NOT NULL,
            origin TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_goal_notes_goal ON goal_notes(goal, id)")
