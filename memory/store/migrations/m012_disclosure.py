"""Migration 012: disclosure."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m012_disclosure(db):
    """Who may hear what (memory/core/disclosure.py): an audience on every memory, turn and
    observation, and a memory's origin (the chat it came from, the person who said it)."""
    for table in ("memories", "memory_archive"):
        db.execute(f"ALTER TABLE {table} ADD COLUMN audience TEXT NOT NULL DEFAULT 'user'")
        db.execute(f"ALTER TABLE {table} ADD COLUMN origin_chat TEXT")
        db.execute(f"ALTER TABLE {table} ADD COLUMN said_by TEXT")
    db.execute("ALTER TABLE observations ADD COLUMN audience TEXT NOT NULL DEFAULT 'user'")
    db.execute("ALTER TABLE conversation_turns ADD COLUMN audience TEXT NOT NULL DEFAULT 'user'")
    db.execute("CREATE INDEX idx_memories_audience ON memories(namespace, audience)")
    db.execute("ALTER TABLE pack_log ADD COLUMN audience TEXT")  # whom the pack was for (None: no one said)
    # What was stored before: a chat's turns are its chat's; observations and the memories they
    # became follow their session; the workspace is shared except MEMORY.md and USER.md.
    db.execute(
        "UPDATE conversation_turns SET audience = (SELECT CASE WHEN c.channel IN ('chatgpt', 'claude') THEN 'user' "
        "ELSE c.kind || ':' || c.chat END FROM chats c WHERE c.namespace = conversation_turns.namespace "
        "AND c.chat = conversation_turns.chat) WHERE chat IS NOT NULL"
    )
    db.execute(
        "UPDATE observations SET audience = coalesce((SELECT t.audience FROM conversation_turns t "
        "WHERE t.session = observations.session LIMIT 1), 'user')"
    )
    db.execute(
        "UPDATE memories SET audience = (SELECT o.audience FROM observations o WHERE o.memory_id = memories.id "
        "LIMIT 1) WHERE id IN (SELECT memory_id FROM observations WHERE memory_id IS NOT NULL)"
    )
    db.execute(
        "UPDATE memories SET audience = 'shared' WHERE tags LIKE '%\"workspace\"%' "
        "AND source NOT LIKE 'MEMORY.md%' AND source NOT LIKE 'USER.md%'"
    )
