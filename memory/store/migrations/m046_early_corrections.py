"""Migration 046: early corrections."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m046_early_corrections(db):
    """A deletion or an edit of a chat message that is not stored yet (a platform retries and does
    not promise order: Slack's message_deleted can come before the message it deletes): kept by the
    message's key, and applied when the message arrives, so a deleted message is never stored live.
    ``kind`` is 'deleted' or 'edited' (then ``text`` and ``edited_at``); a deletion wins over an edit."""
    db.execute(
        """CREATE TABLE early_corrections (
            namespace TEXT NOT NULL,
            key TEXT NOT NULL,
            kind TEXT NOT NULL,
            text TEXT,
            edited_at TEXT,
            at TEXT NOT NULL,
            PRIMARY KEY (namespace, key)
        )"""
    )
