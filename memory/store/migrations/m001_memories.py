"""Migration 001: memories."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import MEMORY_COLUMNS


@migrations()
def m001_memories(db):
    # seq is the stable integer key shared with the vec0 and FTS5 indexes.
    db.execute(f"CREATE TABLE memories (seq INTEGER PRIMARY KEY, {MEMORY_COLUMNS})")
    db.execute("CREATE INDEX idx_memories_ns_type ON memories(namespace, type)")
    db.execute("CREATE INDEX idx_memories_ns_accessed ON memories(namespace, last_accessed)")
    # The archive: memories that decayed below the Cold tier or were archived by hand.
    # Not indexed for search; restored to `memories` by a direct reference.
    db.execute(f"CREATE TABLE memory_archive (seq INTEGER PRIMARY KEY, {MEMORY_COLUMNS}, archived_at TEXT NOT NULL)")
    db.execute("CREATE INDEX idx_archive_ns ON memory_archive(namespace)")
    # Contentless: it indexes content plus the optional context, which is not a column
    # of its own anywhere; contentless_delete lets a row leave the index by rowid.
    db.execute(
        "CREATE VIRTUAL TABLE memories_fts USING fts5("
        "text, content='', contentless_delete=1, "
        "tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
