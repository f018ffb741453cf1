"""Migration 021: context text."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m021_context_text(db):
    """What conversation.context gave the agent, kept for the dashboard (issue 18): the stable
    prefix, the messages and their token parts, zlib-compressed JSON. The newest few per session
    (persona_tables.KEEP_CONTEXTS); older builds keep their row without it."""
    db.execute("ALTER TABLE context_builds ADD COLUMN context BLOB")
