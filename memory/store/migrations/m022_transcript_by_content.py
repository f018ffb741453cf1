"""Migration 022: transcript by content."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m022_transcript_by_content(db):
    """An app's history is matched against the stored transcript by content, not by count: each
    turn keeps its digest and the running chain of its conversation up to it (NULL until first
    needed: chats imported in bulk never need one). A history that leaves a stored one partway
    (a regenerate, an edit, another chat that opens alike) continues in a branch: a session that
    inherits its parent's turns up to ``fork_seq`` and stores only its own. ``pending``: turns a
    door stored for a model call whose answer has not come back; they are neither observed nor
    made episodes until confirmed, and a refused call takes them back."""
    db.execute("ALTER TABLE conversation_turns ADD COLUMN digest TEXT")
    db.execute("ALTER TABLE conversation_turns ADD COLUMN chain TEXT")
    db.execute("ALTER TABLE conversation_turns ADD COLUMN pending INTEGER NOT NULL DEFAULT 0")
    db.execute("CREATE INDEX idx_turns_chain ON conversation_turns(namespace, chain) WHERE chain IS NOT NULL")
    db.execute("CREATE INDEX idx_turns_digest ON conversation_turns(namespace, digest) WHERE digest IS NOT NULL")
    db.execute("CREATE INDEX idx_turns_pending ON conversation_turns(pending) WHERE pending = 1")
    db.execute(
        """CREATE TABLE conversation_branches (
            session TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            family TEXT NOT NULL,
            parent TEXT,
            fork_seq INTEGER,
            created TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_branches_family ON conversation_branches(namespace, family)")
    db.execute("CREATE INDEX idx_branches_parent ON conversation_branches(parent, fork_seq)")
