"""Migration 050: forgotten words leave the file."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import fts_secure_delete, namespace_fts_table, on_sqlite


@migrations()
def m050_forgotten_words_leave_the_file(db):
    """A forgotten memory's or turn's words stayed readable in the database file: in the pages its
    rows had used, and in the full-text indexes, whose deletions were markers beside the words until
    a merge. The store now writes zeros over what it deletes (the writer's ``secure_delete``) and
    the FTS5 tables remove a deleted row's words at once; each index is merged once here, so the
    words of what was forgotten before leave it too. (PostgreSQL keeps its own FTS: nothing to do.)"""
    if not on_sqlite(db):
        return
    tables = ["conversation_turns_fts"] + [
        namespace_fts_table(number) for (number,) in db.execute("SELECT number FROM fts_namespaces").fetchall()
    ]
    for table in tables:
        fts_secure_delete(db, table)
        db.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
