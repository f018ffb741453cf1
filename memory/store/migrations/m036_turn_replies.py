"""Migration 036: turn replies."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m036_turn_replies(db):
    """The turn a chat message replies to (a Telegram, Slack or Discord reply, a thread): its
    episode is indexed with what it answers, however far back that was said."""
    db.execute("ALTER TABLE conversation_turns ADD COLUMN reply_to INTEGER")
    db.execute("CREATE INDEX idx_turns_reply_to ON conversation_turns(reply_to) WHERE reply_to IS NOT NULL")
