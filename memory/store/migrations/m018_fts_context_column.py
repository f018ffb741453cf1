"""Migration 018: fts context column."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import create_namespace_fts, namespace_fts_table


@migrations()
def m018_fts_context_column(db):
    """A memory's context gets an FTS5 column of its own (issue 16), so BM25 can weigh the words
    of the memory above the words around it ([retrieval] context_weight): a short turn indexed
    with the turns before it no longer outranks the turn that says what was asked. Every
    namespace's table is rebuilt from the live memories."""
    live = "FROM memories WHERE superseded_by IS NULL"
    for number, namespace in db.execute("SELECT number, namespace FROM fts_namespaces ORDER BY number").fetchall():
        db.execute(f"DROP TABLE {namespace_fts_table(number)}")
        create_namespace_fts(db, number)
        db.execute(
            f"INSERT INTO {namespace_fts_table(number)} (rowid, text, context) "
            f"SELECT seq, content, coalesce(context, '') {live} AND namespace = ?",
            (namespace,),
        )
