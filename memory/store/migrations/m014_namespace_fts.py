"""Migration 014: namespace fts."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import namespace_fts_table


@migrations()
def m014_namespace_fts(db):
    """BM25 per namespace (issue 16): one FTS5 table per namespace, so its IDF, document count,
    average length and stop-word cut are the namespace's own, not the whole store's (a word
    common in one agent's memories must not be a stop word in another's). fts_namespaces
    numbers the tables; the store-wide memories_fts is rebuilt into them and dropped."""
    db.execute("CREATE TABLE fts_namespaces (namespace TEXT PRIMARY KEY, number INTEGER NOT NULL UNIQUE)")
    live = "FROM memories WHERE superseded_by IS NULL"
    for number, (namespace,) in enumerate(db.execute(f"SELECT DISTINCT namespace {live} ORDER BY 1").fetchall(), 1):
        db.execute("INSERT INTO fts_namespaces (namespace, number) VALUES (?, ?)", (namespace, number))
        db.execute(
            f"CREATE VIRTUAL TABLE {namespace_fts_table(number)} USING fts5("
            "text, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')"
        )
        db.execute(
            f"INSERT INTO {namespace_fts_table(number)} (rowid, text) SELECT seq, CASE WHEN coalesce(context, '') = '' "
            f"THEN content ELSE context || char(10) || content END {live} AND namespace = ?",
            (namespace,),
        )
    db.execute("DROP TABLE memories_fts")
