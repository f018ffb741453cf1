"""Migration 023: sessions by namespace."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m023_sessions_by_namespace(db):
    """Session ids are scoped by namespace (memory/core/sessions.py): outside the default namespace
    a conversation's key becomes ``name|namespace``, in every table that names it, so another
    namespace may use the same id. Keys in the default namespace stay as they are. A memory's source
    (conversation:NAME#turn…) keeps the name: the memory's namespace says whose it is."""
    db.execute("CREATE TEMP TABLE renamed (old TEXT PRIMARY KEY, new TEXT NOT NULL, namespace TEXT NOT NULL)")
    db.execute(
        "INSERT OR IGNORE INTO renamed SELECT DISTINCT session, session || '|' || namespace, namespace FROM ("
        "SELECT session, namespace FROM conversation_turns UNION SELECT session, namespace FROM conversation_branches"
        ") WHERE namespace != 'default' AND instr(session, '|') = 0"
    )
    for table, column in (
        ("conversation_turns", "session"),
        ("observations", "session"),
        ("conversation_runs", "session"),
        ("persona_records", "session"),
        ("sync_scores", "session"),
        ("context_builds", "session"),
        ("conversation_branches", "session"),
        ("conversation_branches", "parent"),
        ("conversation_branches", "family"),
    ):
        db.execute(
            f"UPDATE {table} SET {column} = (SELECT new FROM renamed WHERE old = {table}.{column}) "
            f"WHERE {column} IN (SELECT old FROM renamed)"
        )
    db.execute("DROP TABLE renamed")
