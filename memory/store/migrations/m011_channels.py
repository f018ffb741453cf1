"""Migration 011: channels."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m011_channels(db):
    """Chats and the people in them (issue 15). A person is stable across channels: each account
    (a channel's user id, or the name where the app has none) points at one person, and merging
    two people repoints the accounts. "user" is the person the agent serves."""
    db.execute(
        """CREATE TABLE people (
            id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            name TEXT NOT NULL,
            created TEXT NOT NULL,
            merged_into TEXT
        )"""
    )
    db.execute("CREATE INDEX idx_people_ns ON people(namespace, merged_into)")
    db.execute(
        """CREATE TABLE person_accounts (
            namespace TEXT NOT NULL,
            channel TEXT NOT NULL,
            account TEXT NOT NULL,
            person TEXT NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (namespace, channel, account)
        ) WITHOUT ROWID"""
    )
    db.execute("CREATE INDEX idx_person_accounts_person ON person_accounts(person)")
    db.execute(
        """CREATE TABLE chats (
            namespace TEXT NOT NULL,
            chat TEXT NOT NULL,
            channel TEXT NOT NULL,
            title TEXT NOT NULL,
            kind TEXT NOT NULL,
            created TEXT NOT NULL,
            PRIMARY KEY (namespace, chat)
        ) WITHOUT ROWID"""
    )
    # One row per message stored from a chat: what makes an import idempotent and resumable.
    db.execute(
        """CREATE TABLE chat_message_keys (
            namespace TEXT NOT NULL,
            key TEXT NOT NULL,
            turn_seq INTEGER NOT NULL,
            PRIMARY KEY (namespace, key)
        ) WITHOUT ROWID"""
    )
    # A turn's provenance: the chat it was said in and the person who said it (NULL: an app's
    # own user/assistant turns, as before).
    db.execute("ALTER TABLE conversation_turns ADD COLUMN chat TEXT")
    db.execute("ALTER TABLE conversation_turns ADD COLUMN person TEXT")
    db.execute("CREATE INDEX idx_turns_person ON conversation_turns(person, seq)")
    db.execute("CREATE INDEX idx_turns_chat ON conversation_turns(chat, seq)")
    # The raw turns stay searchable by their words (external content: the text is not stored twice).
    db.execute(
        "CREATE VIRTUAL TABLE conversation_turns_fts USING fts5(content, content='conversation_turns', "
        "content_rowid='seq', tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.execute(
        "CREATE TRIGGER conversation_turns_fts_insert AFTER INSERT ON conversation_turns BEGIN "
        "INSERT INTO conversation_turns_fts(rowid, content) VALUES (new.seq, new.content); END"
    )
    db.execute("INSERT INTO conversation_turns_fts(rowid, content) SELECT seq, content FROM conversation_turns")
